#pragma once

/// @file
/// The client's actor for a remote slice: consecutive nodes of a graph at
/// one host, sent there as one trip (docs/architecture.md, "A trip"). What
/// graph.hpp's templates see of it is soma/graph/slice_entry.hpp.

#include <atomic>
#include <cstddef>
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

/// A plan with what every trip to it needs: shared by the slice's actor and
/// the blocked callers of a graph that starts with it (send_from_caller).
struct slice_route {
  std::shared_ptr<const slice_plan> plan;
  std::string header; ///< the members encoded: sent with every trip
  slice_exit exit;    ///< carries a forward on after the slice
  /// Whether the last trip carried a large value either way (at least
  /// large_trip_bytes in or out). While it does, blocked callers leave the
  /// trip to the slice's actor: a caller thread that encodes and decodes
  /// 1 MiB values itself makes and frees those buffers in its own arena,
  /// which glibc hands back to the kernel, so every trip page-faults them
  /// in again (benchmarks/README.md, "A trip from the caller").
  mutable std::atomic<bool> large{false};
};

/// What makes a trip large (slice_route::large): 64 KiB.
inline constexpr std::size_t large_trip_bytes = 64 * 1024;

struct slice_state {
  std::shared_ptr<const slice_route> route;
  const slice_plan* plan = nullptr; ///< route's, for short
  caf::actor cache_writer;          ///< keeps its outputs, from its first miss
  bool said_no_store = false;       ///< told once that a forward gave it no store
  std::uint64_t next_trip = 1;
  std::map<std::uint64_t, trip> trips;
  std::set<caf::actor_addr> watched; ///< sessions monitored
};

/// The state of the slice actor `self`.
inline slice_state& state_of(slice_actor* self) { return *self->state.impl; }

} // namespace soma::detail
