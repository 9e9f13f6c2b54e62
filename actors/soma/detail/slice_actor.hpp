#pragma once

/// @file
/// The client's actor for a remote slice: consecutive nodes of a graph at
/// one host, sent there as one trip.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <caf/actor.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/stateful_actor.hpp>

#include "soma/codec.hpp"
#include "soma/detail/forward_state.hpp"
#include "soma/detail/worker_link.hpp"

namespace soma::detail {

/// One node of a remote slice, as the client sends it.
struct slice_member {
  std::string type;       ///< its C++ type: its name in the node library
  std::string name;       ///< the graph's name for it
  std::string definition; ///< SHA-256 of the node library defining it
  std::string library;    ///< that library's path (shipped in mode::network)
};

/// Decodes a slice's output and carries the forward on, to the next node or
/// to its end. Throws when the bytes do not decode.
using slice_exit = std::function<void(std::string_view bytes, forward_ptr&&, caf::local_actor*)>;

/// One trip in flight.
struct trip {
  forward_ptr forward;
  std::int64_t began_us = 0;        ///< when it left, since the forward began
  std::chrono::steady_clock::time_point sent;
  std::string slice;                ///< the Slice bytes, kept to resend after shipping code
  caf::actor session;
  std::shared_ptr<worker_link> link;
  std::size_t ships = 0;            ///< libraries shipped for it so far
};

struct slice_state {
  std::string host;
  std::vector<slice_member> members;
  slice_exit exit;
  std::uint64_t next_trip = 1;
  std::map<std::uint64_t, trip> trips;
  std::set<caf::actor_addr> watched; ///< sessions monitored
  static inline const char* name = "soma.slice";
};

using slice_actor = caf::stateful_actor<slice_state>;

/// Sets the actor up: the down handler that fails the trips of a lost worker.
void slice_setup(slice_actor* self, std::string host, std::vector<slice_member> members,
                 slice_exit exit);

/// Sends `input` (the first node's In, encoded) for the forward `fw`.
void slice_send(slice_actor* self, forward_ptr fw, std::string input);

/// Ends `fw` with `broke` at this slice's first node (input not encodable).
void slice_broke(slice_actor* self, forward_state& fw, const std::string& error);

/// The behaviour of a slice whose first node takes `In`.
template <class In>
caf::behavior slice_behavior(slice_actor* self, std::string host,
                             std::vector<slice_member> members, slice_exit exit) {
  slice_setup(self, std::move(host), std::move(members), std::move(exit));
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
