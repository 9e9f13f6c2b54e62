#pragma once

/// @file
/// The state one forward carries from node actor to node actor.

#include <chrono>
#include <cstdint>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <caf/fwd.hpp>
#include <caf/intrusive_ptr.hpp>
#include <caf/ref_counted.hpp>

#include "soma/fact.hpp"
#include "soma/store/store.hpp"
#include "soma/watching.hpp"

namespace soma::detail {

/// What a forward's broker knows: defined with soma::broker (actors/).
class broker_state;

using clock = std::chrono::steady_clock;

/// One forward in flight: when it began, who watches it, and how it ends.
///
/// A forward visits its node actors one after another, so at any moment
/// exactly one actor touches this state: it needs no lock. It travels inside
/// `step` messages by intrusive pointer. Facts are emitted to the watchers the
/// moment they are stamped: callables are called inline, actors get a message.
class forward_state : public caf::ref_counted {
public:
  /// Watchers owned by the forward (a request from an actor).
  explicit forward_state(soma::watching owned);

  /// Watchers owned by a caller that blocks until the forward ends.
  explicit forward_state(const soma::watching* borrowed);

  ~forward_state() override;

  [[nodiscard]] clock::time_point began() const noexcept { return began_; }

  /// This forward's id, unique in the process (see soma::forward_fact).
  [[nodiscard]] std::uint64_t id() const noexcept { return id_; }

  /// Microseconds from the forward's beginning to `t`.
  [[nodiscard]] std::int64_t since_began_us(clock::time_point t) const noexcept {
    return std::chrono::duration_cast<std::chrono::microseconds>(t - began_).count();
  }

  /// Tells every watcher `x`, in order. `host` is the execution unit of the
  /// actor that stamped it (nullptr outside an actor).
  void emit(fact&& x, caf::execution_unit* host);

  /// Ends the forward with the failure of `node` (emits nothing; the caller
  /// has emitted `failed` and `broke`). Called by exactly one actor, once.
  virtual void fail(std::string node, std::string error, caf::local_actor* self) = 0;

  /// Whether the forward has ended (a value or a failure was handed over).
  [[nodiscard]] bool ended() const noexcept { return ended_; }

  /// Marks the forward ended; called right before complete() or fail().
  void mark_ended() noexcept { ended_ = true; }

  /// The store cached nodes keep their outputs in, or nullptr.
  [[nodiscard]] const soma::store* kept() const noexcept { return kept_ ? &*kept_ : nullptr; }

  /// Sets the store cached nodes keep their outputs in.
  void keep_in(std::optional<soma::store> s) { kept_ = std::move(s); }

  /// The broker that says where the forward's remote nodes run, or nullptr.
  [[nodiscard]] broker_state* broker() const noexcept { return broker_.get(); }

  /// Sets the forward's broker.
  void route_through(std::shared_ptr<broker_state> b) { broker_ = std::move(b); }

  /// The first error a callable watcher threw, if any.
  [[nodiscard]] const std::optional<std::string>& watcher_error() const noexcept {
    return watcher_error_;
  }

private:
  std::uint64_t id_;
  clock::time_point began_;
  std::optional<soma::watching> owned_;
  const soma::watching* watching_;
  std::optional<soma::store> kept_;
  std::shared_ptr<broker_state> broker_;
  bool ended_ = false;
  std::vector<bool> dropped_; // callables that threw: told nothing more
  std::optional<std::string> watcher_error_;
};

using forward_ptr = caf::intrusive_ptr<forward_state>;

/// A forward ending in a value of type `Out`.
template <class Out>
class forward_result : public forward_state {
public:
  using forward_state::forward_state;

  /// Ends the forward with its value (the caller has emitted `finished`).
  /// Called by exactly one actor, once.
  virtual void complete(Out&& value, caf::local_actor* self) = 0;
};

/// The message that moves a forward from one node actor to the next.
template <class T>
struct step {
  forward_ptr forward;
  T value;
};

/// Microseconds in `d`, as facts say them.
[[nodiscard]] inline std::int64_t micros(clock::duration d) noexcept {
  return std::chrono::duration_cast<std::chrono::microseconds>(d).count();
}

/// What a node's exception says: what() of a std::exception, a thrown
/// string as it is, else a sentence saying it was something else.
[[nodiscard]] std::string what(std::exception_ptr e);

/// The engine's facts, stamped in one place.
fact ran_fact(const std::string& node, std::int64_t began_us, std::int64_t took_us);
fact failed_fact(const std::string& node, const std::string& error,
                 std::int64_t began_us, std::int64_t took_us);
fact broke_fact(const std::string& node, const std::string& error, std::int64_t took_us);
fact finished_fact(std::int64_t took_us);
fact recalled_fact(const std::string& node, std::int64_t began_us, std::int64_t took_us,
                   std::size_t bytes);
fact kept_fact(const std::string& node, std::int64_t began_us, std::int64_t took_us,
               std::size_t bytes);

} // namespace soma::detail
