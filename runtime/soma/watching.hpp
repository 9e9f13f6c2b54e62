#pragma once

/// @file
/// soma::watching: who is told a forward's facts while it runs.

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <type_traits>
#include <utility>
#include <vector>

#include <caf/actor.hpp>
#include <caf/actor_cast.hpp>
#include <caf/fwd.hpp>

#include "soma/export.hpp"
#include "soma/fact.hpp"

SOMA_API_BEGIN

namespace soma {

/// A fact with the forward it belongs to, as a forward-aware actor watcher
/// receives it (see watcher::forward_aware). `forward` is unique within the
/// process; consecutive forwards of one graph have increasing ids.
struct forward_fact {
  std::uint64_t forward = 0;
  soma::fact fact;
};

/// CAF inspection, so a forward_fact can cross the network.
template <class Inspector>
auto inspect(Inspector& f, forward_fact& x) {
  return f(x.forward, x.fact);
}

/// Every fact of one forward, in the order told, as one message: what a
/// whole-forward actor watcher receives (see watcher::whole_forwards), once
/// the forward ends with `finished` or `broke`.
struct forward_facts {
  std::uint64_t forward = 0;
  std::vector<soma::fact> facts;
};

/// CAF inspection, so forward_facts can cross the network.
template <class Inspector>
auto inspect(Inspector& f, forward_facts& x) {
  return f(x.forward, x.facts);
}

/// One subscriber to facts: a callable or a CAF actor.
///
/// A callable is called with each fact on the thread that stamped it (the node
/// actor's), in the order things happened, never twice at once for one
/// forward; if the same callable watches forwards that overlap, it must be
/// safe to call from several threads. An actor receives each fact as a
/// `soma::fact` message; every fact of a forward is in its mailbox, in order,
/// before that forward returns.
class watcher {
public:
  /// Any callable taking `const soma::fact&`.
  template <class F>
    requires std::invocable<F&, const fact&>
             && (!std::is_convertible_v<const F&, caf::actor>)
             && (!std::same_as<std::remove_cvref_t<F>, watcher>)
  watcher(F f) : call_(std::move(f)) {}

  /// A dynamically typed actor that handles `soma::fact`.
  watcher(caf::actor a) : actor_(std::move(a)) {}

  /// A typed actor whose interface accepts `soma::fact`.
  template <class... Sigs>
  watcher(const caf::typed_actor<Sigs...>& a)
    : actor_(caf::actor_cast<caf::actor>(a)) {}

  /// An actor told `soma::forward_fact` instead of `soma::fact`, so it can
  /// tell forwards apart even when they overlap (soma::recorder is one).
  static watcher forward_aware(caf::actor a) {
    watcher w{std::move(a)};
    w.forward_aware_ = true;
    return w;
  }

  /// An actor told each forward's facts as one soma::forward_facts message,
  /// sent when the forward ends (its `finished` or `broke`), in the order they
  /// were told: a message a forward instead of one a fact, for a watcher that
  /// can wait for the end. Every fact of a forward comes before its end; the
  /// order of messages from overlapping forwards is the order they ended.
  static watcher whole_forwards(caf::actor a) {
    watcher w{std::move(a)};
    w.whole_ = true;
    return w;
  }

  /// What a sink is called with: the forward's id and the fact.
  using sink_fn = std::function<void(std::uint64_t forward, const fact&)>;

  /// A sink: called like a callable, on the thread that stamped each fact,
  /// in order, never twice at once for one forward, but told the forward's
  /// id too, and told every fact even after a caller gave up waiting (as an
  /// actor would be): it must own everything it touches and be safe to call
  /// from several threads. soma::recorder is one: it takes facts into its
  /// actor's inbox on the node's thread, with no message per fact.
  static watcher sink(sink_fn f) {
    watcher w{caf::actor{}};
    w.sink_ = std::move(f);
    return w;
  }

  /// The sink; empty for anything else.
  [[nodiscard]] const sink_fn& sink() const noexcept { return sink_; }

  /// Whether the actor is told soma::forward_fact.
  [[nodiscard]] bool is_forward_aware() const noexcept { return forward_aware_; }

  /// Whether the actor is told soma::forward_facts, once a forward.
  [[nodiscard]] bool is_whole_forwards() const noexcept { return whole_; }

  /// Whether this watcher is an actor (else a callable).
  [[nodiscard]] bool is_actor() const noexcept { return static_cast<bool>(actor_); }

  /// The actor; empty for a callable.
  [[nodiscard]] const caf::actor& actor() const noexcept { return actor_; }

  /// The callable; empty for an actor.
  [[nodiscard]] const std::function<void(const fact&)>& callable() const noexcept {
    return call_;
  }

private:
  std::function<void(const fact&)> call_;
  sink_fn sink_;
  caf::actor actor_;
  bool forward_aware_ = false;
  bool whole_ = false;
};

/// Every watcher of one forward: none, one, or several, in any mix.
///
/// `{.watching = soma::print}`, `{.watching = my_actor}` and
/// `{.watching = {soma::print, my_actor, [&](const soma::fact& f) {...}}}`
/// all work.
class watching {
public:
  watching() = default;

  /// One watcher: a callable, an actor handle, or anything that converts to
  /// a watcher (a soma::recorder). Taken by reference: nothing is copied but
  /// the watcher itself.
  template <class W>
    requires std::constructible_from<watcher, W&&>
             && (!std::same_as<std::remove_cvref_t<W>, watching>)
             && (!std::same_as<std::remove_cvref_t<W>, watcher>)
  watching(W&& w) {
    add(watcher(std::forward<W>(w)));
  }

  /// One watcher.
  watching(watcher w) { add(std::move(w)); }

  /// Several watchers.
  watching(std::initializer_list<watcher> ws);

  /// Several watchers.
  explicit watching(std::vector<watcher> ws);

  /// Adds one more watcher.
  void add(watcher w);

  [[nodiscard]] bool empty() const noexcept { return size() == 0; }

  [[nodiscard]] std::size_t size() const noexcept {
    return callables_.size() + actors_.size() + forward_aware_.size() + sinks_.size()
           + whole_.size();
  }

  /// The callables, in the order they were given.
  [[nodiscard]] const std::vector<std::function<void(const fact&)>>& callables() const noexcept {
    return callables_;
  }

  /// The sinks, in the order they were given.
  [[nodiscard]] const std::vector<watcher::sink_fn>& sinks() const noexcept { return sinks_; }

  /// The actors told soma::fact, in the order they were given.
  [[nodiscard]] const std::vector<caf::actor>& actors() const noexcept { return actors_; }

  /// The actors told soma::forward_fact, in the order they were given.
  [[nodiscard]] const std::vector<caf::actor>& forward_aware() const noexcept {
    return forward_aware_;
  }

  /// The actors told soma::forward_facts, in the order they were given.
  [[nodiscard]] const std::vector<caf::actor>& whole_forwards() const noexcept { return whole_; }

private:
  std::vector<std::function<void(const fact&)>> callables_;
  std::vector<watcher::sink_fn> sinks_;
  std::vector<caf::actor> actors_;
  std::vector<caf::actor> forward_aware_;
  std::vector<caf::actor> whole_;
};

} // namespace soma

SOMA_API_END
