#pragma once

/// @file
/// The client's actor for a remote slice: consecutive nodes of a graph at
/// one host, sent there as one trip (docs/architecture.md, "A trip"). What
/// graph.hpp's templates see of it is soma/graph/slice_entry.hpp.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <caf/actor.hpp>

#include "soma/graph/slice_entry.hpp"
#include "soma/remote/trip.hpp"
#include "soma/wire/slice.hpp"

namespace soma::detail {

/// Where a slice runs and what: made by plan_slice when the graph is made.
struct slice_plan {
  std::string host;
  std::vector<wire::slice_node> members;
  /// Set when the slice is one cached node (a cached remote node is a slice
  /// of its own): its frozen version. The rest of who its kept outputs
  /// belong to is its member's type, name and fields.
  std::optional<std::string> cached;
};

struct slice_state {
  std::shared_ptr<const slice_plan> plan; ///< where it runs and what, shared with its graph's making
  std::string header;                ///< the members encoded: sent with every trip
  caf::actor cache_writer;           ///< keeps its outputs, from its first miss
  bool said_no_store = false;        ///< told once that a forward gave it no store
  slice_exit exit;
  std::uint64_t next_trip = 1;
  std::map<std::uint64_t, trip> trips;
  std::set<caf::actor_addr> watched; ///< sessions monitored
};

/// The state of the slice actor `self`.
inline slice_state& state_of(slice_actor* self) { return *self->state.impl; }

} // namespace soma::detail
