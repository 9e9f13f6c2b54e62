#pragma once

/// @file
/// A remote slice as the templates of soma/graph.hpp see it: consecutive
/// nodes of a graph at one host, one actor on the client, entered by its
/// first node's `In` (docs/architecture.md, "A trip, file by file"). What it
/// sends and how it answers is actors/soma/remote/slice.hpp's, which is not
/// installed.
///
/// Part of what the templates of soma/graph.hpp compile in your program, so
/// it is installed; it is not an API: its names are in soma::detail and
/// may change with any release.

#include <cstddef>
#include <exception>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <caf/behavior.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/stateful_actor.hpp>

#include "soma/codec.hpp"
#include "soma/export.hpp"
#include "soma/forward_state.hpp"
#include "soma/node_declaration.hpp"

SOMA_API_BEGIN

namespace soma::detail {

/// Decodes a slice's output and carries the forward on, to the next node or
/// to its end. Throws, having sent nothing, when the bytes do not decode;
/// `decoded`, when given, is called once they did, before anything is sent.
using slice_exit = std::function<void(std::string_view bytes, forward_ptr&&, caf::local_actor*,
                                      const std::function<void()>* decoded)>;

SOMA_API_HIDDEN_BEGIN
struct slice_state; // the slice's own: actors/soma/remote/slice.hpp
struct slice_plan;  // where it runs and what: plan_slice makes one
SOMA_API_HIDDEN_END

/// What a slice actor holds: its state, defined where slices are run.
struct slice_holder {
  slice_holder();
  ~slice_holder();
  std::unique_ptr<slice_state> impl;
  static inline const char* name = "soma.slice";
};

using slice_actor = caf::stateful_actor<slice_holder>;

/// Throws std::invalid_argument, its text after `at`, when no node library
/// loaded in this process lists `type` (a remote node must be in one).
void require_node_library(const std::string& type, const std::string& at);

/// The slice of nodes `first` to `last` of `declaration` (all at one host),
/// with their fields encoded in `states`: each member's type, name and the
/// library that defines it.
[[nodiscard]] std::shared_ptr<const slice_plan>
plan_slice(const std::vector<node_declaration>& declaration, const std::vector<std::string>& states,
           std::size_t first, std::size_t last);

/// Sets the actor up: the down handler that fails the trips of a lost worker.
void slice_setup(slice_actor* self, std::shared_ptr<const slice_plan> plan, slice_exit exit);

/// The name of the slice's first node.
[[nodiscard]] const std::string& slice_first_node(slice_actor* self);

/// Sends `input` (the first node's In, encoded) for the forward `fw`; for a
/// cached slice, recalls it instead when the forward's store keeps it.
void slice_send(slice_actor* self, forward_ptr fw, std::string input);

/// Ends `fw` with `broke` at this slice's first node (input not encodable).
void slice_broke(slice_actor* self, forward_state& fw, const std::string& error);

/// The behaviour of a slice whose first node takes `In`.
template <class In>
caf::behavior slice_behavior(slice_actor* self, std::shared_ptr<const slice_plan> plan,
                             slice_exit exit) {
  slice_setup(self, std::move(plan), std::move(exit));
  return {
    [self](step<In>& s) {
      if (s.forward->expired_at(slice_first_node(self), self))
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

SOMA_API_END
