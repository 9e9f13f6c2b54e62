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
#include <caf/message_handler.hpp>
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
/// The actor is the slice's; none only on a blocked caller's thread, from
/// send_from_caller, for the graph's blocking forward that caller waits on
/// (the exit then lets the caller run the next nodes, caller_runs.hpp).
using slice_exit = std::function<void(std::string_view bytes, forward_ptr&&, caf::local_actor*,
                                      const std::function<void()>* decoded)>;

SOMA_API_HIDDEN_BEGIN
struct slice_state; // the slice's own: actors/soma/remote/slice.hpp
struct slice_plan;  // where it runs and what: part of a route
struct slice_route; // a plan with its header and exit: plan_slice makes one
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

/// The route of the slice of nodes `first` to `last` of `declaration` (all
/// at one host), with their fields encoded in `states`: each member's type,
/// name and the library that defines it, the members encoded once for every
/// trip, and `exit`, which carries a forward on after the slice. Shared by
/// the slice's actor and, for the slice a graph starts with, by the graph's
/// blocked callers.
[[nodiscard]] std::shared_ptr<const slice_route>
plan_slice(const std::vector<node_declaration>& declaration, const std::vector<std::string>& states,
           std::size_t first, std::size_t last, slice_exit exit);

/// Sends the trip of `fw`, a forward whose caller blocks until it ends, to
/// the slice `route` from the caller's own thread, and takes the worker's
/// answer there: no local actor in between either way (docs/architecture.md,
/// "A trip, file by file"). Blocks until the trip ends: answered, its worker
/// lost, or the forward's deadline. Then it carries the forward on, or ends
/// it, as the slice's actor would. `encoded` gives the first node's In,
/// encoded; it is called only once the trip can go.
///
/// False, having done nothing to the forward, when the slice's actor must
/// carry it: a cached slice (it may recall), a worker that may ask for code
/// (mode::network), no broker or no connected worker for the host (the actor
/// says why), or an input that did not encode (the actor says why).
[[nodiscard]] bool send_from_caller(const slice_route& route, const forward_ptr& fw,
                                    const std::function<std::string()>& encoded);

/// Sets the actor up: the down handler that fails the trips of a lost worker.
void slice_setup(slice_actor* self, std::shared_ptr<const slice_route> route);

/// Takes the forward `fw` into the slice's actor: unless its deadline has
/// passed, sends the first node's In (`encoded` gives it; a throw ends the
/// forward with `broke`) as a trip, or, for a cached slice, recalls its
/// output instead when the forward's store keeps it.
void slice_take(slice_actor* self, forward_ptr fw, const std::function<std::string()>& encoded);

/// Takes `s` into the slice's actor `self`, its value encoded there.
template <class In>
void slice_step(slice_actor* self, step<In>& s) {
  auto& value = s.value;
  slice_take(self, std::move(s.forward), [&value] { return encode(value); });
}

/// The behaviour of a slice whose first node takes `In`.
template <class In>
caf::behavior slice_behavior(slice_actor* self, std::shared_ptr<const slice_route> route) {
  slice_setup(self, std::move(route));
  return {[self](step<In>& s) { slice_step(self, s); }};
}

/// The behaviour of a slice a graph starts with, which is also the graph's
/// actor: a slice's, and what `asked(self)` handles (the graph's forwards).
template <class In, class Asked>
caf::behavior slice_driving(slice_actor* self, std::shared_ptr<const slice_route> route, Asked asked) {
  slice_setup(self, std::move(route));
  caf::message_handler steps{[self](step<In>& s) { slice_step(self, s); }};
  return steps.or_else(asked(self));
}

} // namespace soma::detail

SOMA_API_END
