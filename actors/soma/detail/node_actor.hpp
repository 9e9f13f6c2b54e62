#pragma once

/// @file
/// The actor that runs one node of a graph.

#include <chrono>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include <caf/allowed_unsafe_message_type.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "soma/context.hpp"
#include "soma/detail/forward_state.hpp"
#include "soma/watching.hpp"

namespace caf {

// A step holds a forward in flight (its watchers, its clock): it only ever
// moves between actors of one process. What crosses a network is encoded by
// the value codec, not by CAF's serializer.
template <class T>
struct allowed_unsafe_message_type<soma::detail::step<T>> : std::true_type {};

// Watchers hold callables; a request carrying them stays in its process.
template <>
struct allowed_unsafe_message_type<soma::watching> : std::true_type {};

} // namespace caf

namespace soma::detail {

/// Any actor a forward carrying a `T` can be sent to: the next node, whose In
/// is `T`. The compiler checks every link of a graph against it.
template <class T>
using sink = caf::typed_actor<caf::reacts_to<step<T>>>;

/// The typed actor running node type `N`: it takes `step<N::In>`.
template <class N>
using node_actor = sink<typename N::In>;

/// What a node actor keeps.
template <class N>
struct node_state {
  std::shared_ptr<N> node;
  std::string node_name;
  sink<typename N::Out> next; ///< empty for the last node: it ends the forward
  static inline const char* name = "soma.node";
};

/// Emits `failed` and `broke` for `node` and ends the forward with its error.
void node_threw(forward_state& fw, const std::string& node, std::exception_ptr error,
                clock::time_point began, clock::time_point ended, caf::local_actor* self);

/// Emits `ran` for `node`.
void node_ran(forward_state& fw, const std::string& node, clock::time_point began,
              clock::time_point ended, caf::local_actor* self);

/// Emits `finished` and ends the forward with `value`.
template <class Out>
void finish(forward_state& fw, Out&& value, caf::local_actor* self) {
  fw.emit(finished_fact(fw.since_began_us(clock::now())), self->context());
  static_cast<forward_result<Out>&>(fw).complete(std::move(value), self);
}

/// The behaviour of the actor running node type `N`.
template <class N>
typename node_actor<N>::behavior_type
node_behavior(typename node_actor<N>::template stateful_pointer<node_state<N>> self,
              std::shared_ptr<N> node, std::string name, sink<typename N::Out> next) {
  using In = typename N::In;
  using Out = typename N::Out;
  self->state.node = std::move(node);
  self->state.node_name = std::move(name);
  self->state.next = std::move(next);
  return {
    [self](step<In>& s) {
      auto& st = self->state;
      auto& fw = *s.forward;
      std::optional<Out> out;
      auto began = clock::now();
      try {
        context ctx{fw, st.node_name, self->context()};
        out.emplace(st.node->forward(std::as_const(s.value), ctx));
      } catch (...) {
        node_threw(fw, st.node_name, std::current_exception(), began, clock::now(), self);
        return;
      }
      node_ran(fw, st.node_name, began, clock::now(), self);
      if (st.next)
        self->send(st.next, step<Out>{std::move(s.forward), std::move(*out)});
      else
        finish<Out>(fw, std::move(*out), self);
    },
  };
}

} // namespace soma::detail
