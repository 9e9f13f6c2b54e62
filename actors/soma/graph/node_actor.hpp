#pragma once

/// @file
/// The actor that runs one node of a graph.
///
/// Part of what the templates of soma/graph.hpp compile in your program, so
/// it is installed; it is not an API: its names are in soma::detail and
/// may change with any release.

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

#include "soma/codec.hpp"
#include "soma/context.hpp"
#include "soma/export.hpp"
#include "soma/forward_state.hpp"
#include "soma/graph/cache_writer.hpp"
#include "soma/node.hpp"
#include "soma/store/cache.hpp"
#include "soma/watching.hpp"

SOMA_API_BEGIN

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

/// The name every node actor has (caf::abstract_actor::name()).
inline constexpr char node_actor_name[] = "soma.node";

/// What a node actor keeps.
template <class N>
struct node_state {
  std::shared_ptr<N> node;
  std::string node_name;
  std::string type;           ///< the node's C++ type: part of its cache identity
  std::string state;          ///< its fields encoded (a cached node with a codec): part of its key
  node_config config;
  bool said_no_store = false; ///< a cached node told once that it had no store
  caf::actor cache_writer;    ///< keeps its outputs (a cached node), from its first miss
  sink<typename N::Out> next; ///< empty for the last node: it ends the forward
  static inline const char* name = node_actor_name;
};

/// Whether node type `N`'s outputs can be kept: its In and Out have codecs.
template <class N>
inline constexpr bool cacheable = encodable<typename N::In> && encodable<typename N::Out>;

/// Emits `recalled`, `kept`, or the `ran` of a cached node with no store.
void node_recalled(forward_state& fw, const std::string& node, clock::time_point began,
                   clock::time_point ended, std::size_t bytes, caf::local_actor* self);
void node_kept(forward_state& fw, const std::string& node, clock::time_point began,
               clock::time_point ended, std::size_t bytes, caf::local_actor* self);
void node_ran_without_store(forward_state& fw, const std::string& node, clock::time_point began,
                            clock::time_point ended, caf::local_actor* self);

/// Emits `failed` and `broke` for `node` and ends the forward with its error.
void node_threw(forward_state& fw, const std::string& node, std::exception_ptr error,
                clock::time_point began, clock::time_point ended, caf::local_actor* self);

/// Emits `ran` for `node`.
void node_ran(forward_state& fw, const std::string& node, clock::time_point began,
              clock::time_point ended, caf::local_actor* self);

/// Emits `finished` and ends the forward with `value`, the output of
/// `node`; or, when its deadline ended it first, `broke` for that. `self`
/// is the actor ending it, or nullptr on a blocked caller's thread.
template <class Out>
void finish(forward_state& fw, const std::string& node, Out&& value, caf::local_actor* self) {
  auto* unit = self ? self->context() : nullptr; // none on a blocked caller's thread
  if (!fw.take_end(node, unit))
    return;
  try {
    if (fw.heard())
      fw.emit(finished_fact(fw.since_began_us(clock::now())), unit);
  } catch (...) {
    // Out of memory while saying it: the forward is ours to end all the same.
  }
  static_cast<forward_result<Out>&>(fw).complete(std::move(value), self);
}

/// Ends a forward that broke after its node ran (its output could not be
/// moved on, encoded, or handed over): `broke`, then the failure. No
/// exception leaves an actor.
void broke_after_running(forward_state& fw, const std::string& node, std::exception_ptr error,
                         caf::local_actor* self) noexcept;

/// Sends `out` on to the next node, or ends the forward with it.
template <class N, class Self>
void pass_on(Self* self, forward_ptr&& forward, typename N::Out&& out) {
  using Out = typename N::Out;
  auto& st = self->state;
  if (st.next)
    self->send(st.next, step<Out>{std::move(forward), std::move(out)});
  else
    finish<Out>(*forward, st.node_name, std::move(out), self);
}

/// Runs the node on `s`; emits `ran` (or `failed` and `broke`). Returns the
/// output, or nothing when the node threw and the forward is over.
template <class N, class Self>
std::optional<typename N::Out> run(Self* self, step<typename N::In>& s, bool without_store) {
  auto& st = self->state;
  auto& fw = *s.forward;
  std::optional<typename N::Out> out;
  bool heard = fw.heard(); // nobody hears its `ran`: the clock is not read
  auto began = heard ? clock::now() : clock::time_point{};
  try {
    context ctx{fw, st.node_name, self->context()};
    out.emplace(st.node->forward(std::as_const(s.value), ctx));
  } catch (...) {
    node_threw(fw, st.node_name, std::current_exception(), began, heard ? clock::now() : began, self);
    return std::nullopt;
  }
  if (!heard)
    return out;
  if (without_store)
    node_ran_without_store(fw, st.node_name, began, clock::now(), self);
  else
    node_ran(fw, st.node_name, began, clock::now(), self);
  return out;
}

/// A cached node's step once its output was looked up: `hit` holds the kept
/// output's bytes, if any. Recalls it, or runs the node and keeps what it
/// gave (under `key`; none: not kept).
template <class N, class Self>
void cached_step(Self* self, step<typename N::In>& s, const store& kept, std::string key,
                 std::optional<std::string> hit, clock::time_point began) {
  using Out = typename N::Out;
  auto& st = self->state;
  auto& fw = *s.forward;
  std::optional<Out> recalled;
  if (hit) {
    try {
      recalled.emplace(decode<Out>(*hit));
    } catch (const std::exception&) {
      recalled.reset(); // damaged or of another type: a miss
    }
  }
  if (recalled) {
    node_recalled(fw, st.node_name, began, clock::now(), hit->size(), self);
    pass_on<N>(self, std::move(s.forward), std::move(*recalled));
    return;
  }
  auto out = run<N>(self, s, false);
  if (!out)
    return;
  std::string bytes;
  try {
    if (!key.empty())
      bytes = encode(*out);
  } catch (const std::exception&) {
    key.clear(); // not kept, so no `kept`: the next forward with this input runs again
  }
  if (key.empty()) {
    pass_on<N>(self, std::move(s.forward), std::move(*out));
    return;
  }
  // Kept by the writer, on its own thread; this actor waits for the answer
  // (facts stay in order) but its worker thread goes on with other actors.
  if (!st.cache_writer)
    st.cache_writer = spawn_cache_writer(self);
  auto keeping = clock::now();
  auto size = bytes.size();
  auto held = std::make_shared<std::pair<forward_ptr, Out>>(std::move(s.forward), std::move(*out));
  auto go_on = [self, held](bool kept_it, clock::time_point began, std::size_t bytes_kept) {
    auto& st = self->state;
    forward_ptr keep = held->first; // outlives the step moved on before a throw
    try {
      if (kept_it)
        node_kept(*keep, st.node_name, began, clock::now(), bytes_kept, self);
      pass_on<N>(self, std::move(held->first), std::move(held->second));
    } catch (...) {
      broke_after_running(*keep, st.node_name, std::current_exception(), self);
    }
  };
  self
    ->request(st.cache_writer, keep_within, keep_atom::value,
              cache_write{kept, std::move(key), st.type, st.node_name, *st.config.frozen,
                          std::move(bytes)})
    .await([go_on, keeping, size](bool kept_it) { go_on(kept_it, keeping, size); },
           [go_on, keeping](caf::error&) { go_on(false, keeping, 0); });
}

/// A cached node's step: recall the output kept for this input, or run the
/// node and keep what it gave. Nothing about keeping fails a forward: an
/// input that cannot be encoded runs uncached, a kept output that does not
/// decode (or a store that cannot be read) is a miss, and an output that
/// cannot be kept is simply not `kept`. A store on this host is read here
/// (a memory-mapped read); one on another host (soma://) is asked from the
/// cache writer's thread, so that no pooled thread waits on the network.
template <class N, class Self>
void run_cached(Self* self, step<typename N::In>& s, const store& kept) {
  auto& st = self->state;
  auto began = clock::now();
  std::string key;
  cache_identity who{st.type, st.node_name, *st.config.frozen, st.state};
  try {
    key = cache_key(who, encode(s.value));
  } catch (const std::exception&) {
    key.clear(); // an input the codec refuses runs uncached
  }
  if (key.empty() || kept.on_this_host()) {
    std::optional<std::string> hit;
    try {
      if (!key.empty())
        hit = cache_get(kept, key, who);
    } catch (const std::exception&) {
      hit.reset(); // a store that cannot be read: a miss
    }
    cached_step<N>(self, s, kept, std::move(key), std::move(hit), began);
    return;
  }
  if (!st.cache_writer)
    st.cache_writer = spawn_cache_writer(self);
  auto held = std::make_shared<step<typename N::In>>(std::move(s));
  auto go_on = [self, held, kept, key, began](std::optional<std::string> hit) {
    forward_ptr keep = held->forward;
    try {
      cached_step<N>(self, *held, kept, key, std::move(hit), began);
    } catch (...) {
      broke_after_running(*keep, self->state.node_name, std::current_exception(), self);
    }
  };
  self
    ->request(st.cache_writer, keep_within, recall_atom::value,
              cache_write{kept, key, st.type, st.node_name, *st.config.frozen, {}})
    .await(
      [go_on](bool found, std::string& bytes) {
        go_on(found ? std::optional<std::string>{std::move(bytes)} : std::nullopt);
      },
      [go_on](caf::error&) { go_on(std::nullopt); });
}

/// The behaviour of the actor running node type `N`.
template <class N>
typename node_actor<N>::behavior_type
node_behavior(typename node_actor<N>::template stateful_pointer<node_state<N>> self,
              std::shared_ptr<N> node, std::string name, std::string state,
               sink<typename N::Out> next) {
  using In = typename N::In;
  self->state.config = node->config();
  self->state.type = type_name(typeid(N));
  self->state.node = std::move(node);
  self->state.node_name = std::move(name);
  self->state.state = std::move(state);
  self->state.next = std::move(next);
  return {
    [self](step<In>& s) {
      auto& st = self->state;
      if (s.forward->expired_at(st.node_name, self))
        return; // past its deadline: it goes no further
      forward_ptr keep = s.forward; // outlives a step moved on before a throw
      try {
        bool without_store = false;
        if constexpr (cacheable<N>) {
          if (st.config.cached) {
            if (auto* kept = s.forward->kept()) {
              run_cached<N>(self, s, *kept);
              return;
            }
            // Said once, to a forward someone hears.
            without_store = !st.said_no_store && s.forward->heard();
            st.said_no_store = st.said_no_store || without_store;
          }
        }
        if (auto out = run<N>(self, s, without_store))
          pass_on<N>(self, std::move(s.forward), std::move(*out));
      } catch (...) {
        broke_after_running(*keep, st.node_name, std::current_exception(), self);
      }
    },
  };
}

} // namespace soma::detail

SOMA_API_END
