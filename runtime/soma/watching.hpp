#pragma once

/// @file
/// soma::watching: who is told a forward's facts while it runs.

#include <concepts>
#include <cstddef>
#include <functional>
#include <initializer_list>
#include <type_traits>
#include <utility>
#include <vector>

#include <caf/actor.hpp>
#include <caf/actor_cast.hpp>
#include <caf/fwd.hpp>

#include "soma/fact.hpp"

namespace soma {

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
  caf::actor actor_;
};

/// Every watcher of one forward: none, one, or several, in any mix.
///
/// `{.watching = soma::print}`, `{.watching = my_actor}` and
/// `{.watching = {soma::print, my_actor, [&](const soma::fact& f) {...}}}`
/// all work.
class watching {
public:
  watching() = default;

  /// One watcher: a callable or an actor handle.
  template <class W>
    requires std::constructible_from<watcher, W>
             && (!std::same_as<std::remove_cvref_t<W>, watching>)
  watching(W w) {
    add(watcher(std::move(w)));
  }

  /// Several watchers.
  watching(std::initializer_list<watcher> ws);

  /// Several watchers.
  explicit watching(std::vector<watcher> ws);

  /// Adds one more watcher.
  void add(watcher w);

  [[nodiscard]] bool empty() const noexcept { return callables_.empty() && actors_.empty(); }

  [[nodiscard]] std::size_t size() const noexcept { return callables_.size() + actors_.size(); }

  /// The callables, in the order they were given.
  [[nodiscard]] const std::vector<std::function<void(const fact&)>>& callables() const noexcept {
    return callables_;
  }

  /// The actors, in the order they were given.
  [[nodiscard]] const std::vector<caf::actor>& actors() const noexcept { return actors_; }

private:
  std::vector<std::function<void(const fact&)>> callables_;
  std::vector<caf::actor> actors_;
};

} // namespace soma
