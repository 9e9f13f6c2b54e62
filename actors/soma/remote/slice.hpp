#pragma once

/// @file
/// The client's actor for a remote slice: consecutive nodes of a graph at
/// one host, sent there as one trip (docs/architecture.md, "A trip").

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <caf/actor.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/stateful_actor.hpp>

#include "soma/codec.hpp"
#include "soma/detail/forward_state.hpp"
#include "soma/remote/trip.hpp"
#include "soma/wire/slice.hpp"

namespace soma::detail {

/// Decodes a slice's output and carries the forward on, to the next node or
/// to its end. Throws, having sent nothing, when the bytes do not decode;
/// `decoded`, when given, is called once they did, before anything is sent.
using slice_exit = std::function<void(std::string_view bytes, forward_ptr&&, caf::local_actor*,
                                      const std::function<void()>* decoded)>;

struct slice_state {
  std::string host;
  std::vector<wire::slice_node> members;
  std::string header;                ///< the members encoded: sent with every trip
  /// Set when the slice is one cached node (a cached remote node is a slice
  /// of its own): its frozen version. The rest of who its kept outputs
  /// belong to is its member's type, name and fields.
  std::optional<std::string> cached;
  caf::actor cache_writer;           ///< keeps its outputs, from its first miss
  bool said_no_store = false;        ///< told once that a forward gave it no store
  slice_exit exit;
  std::uint64_t next_trip = 1;
  std::map<std::uint64_t, trip> trips;
  std::set<caf::actor_addr> watched; ///< sessions monitored
  static inline const char* name = "soma.slice";
};

using slice_actor = caf::stateful_actor<slice_state>;

/// Sets the actor up: the down handler that fails the trips of a lost worker.
void slice_setup(slice_actor* self, std::string host, std::vector<wire::slice_node> members,
                 std::optional<std::string> cached, slice_exit exit);

/// Sends `input` (the first node's In, encoded) for the forward `fw`; for a
/// cached slice, recalls it instead when the forward's store keeps it.
void slice_send(slice_actor* self, forward_ptr fw, std::string input);

/// Ends `fw` with `broke` at this slice's first node (input not encodable).
void slice_broke(slice_actor* self, forward_state& fw, const std::string& error);

/// The behaviour of a slice whose first node takes `In`.
template <class In>
caf::behavior slice_behavior(slice_actor* self, std::string host,
                             std::vector<wire::slice_node> members,
                             std::optional<std::string> cached, slice_exit exit) {
  slice_setup(self, std::move(host), std::move(members), std::move(cached), std::move(exit));
  return {
    [self](step<In>& s) {
      if (s.forward->expired_at(self->state.members.front().name, self))
        return; // past its deadline: it goes no further
      std::string bytes;
      try {
        bytes = encode(s.value);
      } catch (const std::exception& e) {
        slice_broke(self, *s.forward, std::string{"its input could not be encoded: "} + e.what());
        return;
      }
      slice_send(self, std::move(s.forward), std::move(bytes));
    },
  };
}

} // namespace soma::detail
