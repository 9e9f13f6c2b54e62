#pragma once

/// @file
/// The state one forward carries from node actor to node actor.
///
/// Part of what the templates of soma/graph.hpp compile in your program, so
/// it is installed; it is not an API: its names are in soma::detail and
/// may change with any release.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <caf/fwd.hpp>
#include <caf/intrusive_ptr.hpp>
#include <caf/ref_counted.hpp>

#include "soma/export.hpp"
#include "soma/fact.hpp"
#include "soma/store/store.hpp"
#include "soma/watching.hpp"

SOMA_API_BEGIN

namespace soma::detail {

template <class T>
class letter;

/// Where a forward's remote nodes run, as the forward carries it. The
/// runtime only carries it; soma::broker's state (actors/soma/remote/
/// broker.hpp) is the one kind there is, and the slices that read it are
/// its.
class route {
public:
  virtual ~route() = default;
};

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

  /// Whether anyone hears this forward's facts: it has a watcher. Fixed
  /// when the forward is made. With none, the engine makes none of its
  /// facts (a node's `ran`, `failed`, `recalled`, `kept`, `finished`, a
  /// trip's facts and `left`) but `broke`, which ends a forward once.
  [[nodiscard]] bool heard() const noexcept { return !watching_->empty(); }

  /// Ends the forward with the failure of `node` (emits nothing; the caller
  /// has emitted `failed` and `broke`). Called by exactly one actor, once.
  virtual void fail(std::string node, std::string error, caf::local_actor* self) = 0;

  /// Whether the forward has ended (a value or a failure was handed over,
  /// or its deadline passed).
  [[nodiscard]] bool ended() const noexcept {
    return end_.load(std::memory_order_acquire) != open;
  }

  /// Claims the forward's end for the actor about to end it (before its
  /// `finished` or `broke`). False when its deadline ended it first: then
  /// `broke` for the deadline has been said (once) in place of what the
  /// actor would have said, and the actor ends nothing.
  [[nodiscard]] bool take_end(const std::string& node, caf::execution_unit* host);

  /// Gives the forward a deadline: `within` after it began (forward_options).
  /// It is headed for `first_node`, so a deadline that strikes it still in
  /// that node's mailbox names the node (in `broke` and in the error alike).
  void give_deadline(std::chrono::milliseconds within, std::string first_node) {
    // A year at most: `milliseconds::max()` would overflow the clock.
    within = std::min<std::chrono::milliseconds>(within, std::chrono::hours(24 * 365));
    allowed_ = within;
    deadline_ = began_ + within;
    std::lock_guard guard{where_lock_};
    at_ = std::move(first_node);
  }

  /// The deadline's length, as given (at most a year).
  [[nodiscard]] std::chrono::milliseconds allowed() const noexcept { return allowed_; }

  [[nodiscard]] const std::optional<clock::time_point>& deadline() const noexcept {
    return deadline_;
  }

  /// What a forward past its deadline says: "the forward did not end
  /// within N ms (forward_options.deadline)".
  [[nodiscard]] std::string deadline_error() const;

  /// At a hop (node `node` is about to take the forward): notes where it
  /// is, and ends it when its deadline passed (`broke`, then the failure)
  /// or says `broke` for the deadline that ended it meanwhile. True when the
  /// forward is over and must not go on. Cheap without a deadline. `self`
  /// is nullptr on a blocked caller's thread (a trip sent from there).
  bool expired_at(const std::string& node, caf::local_actor* self);

  /// Ends the forward now for its deadline, from any actor (a timer, a trip
  /// that timed out), unless it already ended: the failure is handed over,
  /// and `broke` is said when `say` (only the actor holding the forward may
  /// say facts; `self` is nullptr when that is a blocked caller's thread).
  void expire(caf::local_actor* self, bool say);

  /// For the blocked caller whose wait reached the deadline: claims the
  /// end; true when it did, and then no callable watcher is running or will
  /// be called again (they belong to a caller that is leaving).
  [[nodiscard]] bool claim_for_caller();

  /// Where the forward was when last seen at a hop (with a deadline), or "".
  [[nodiscard]] std::string where() const {
    std::lock_guard guard{where_lock_};
    return at_;
  }

  /// Keeps a copy of borrowed watchers: a forward that may outlive its
  /// blocked caller (it has a deadline) must not point into its frame.
  void own_watchers();

  /// The store cached nodes keep their outputs in, or nullptr.
  [[nodiscard]] const soma::store* kept() const noexcept { return kept_ ? &*kept_ : nullptr; }

  /// Sets the store cached nodes keep their outputs in.
  void keep_in(std::optional<soma::store> s) { kept_ = std::move(s); }

  /// What says where the forward's remote nodes run, or nullptr.
  [[nodiscard]] route* routed_by() const noexcept { return route_.get(); }

  /// Sets what says where the forward's remote nodes run.
  void route_through(std::shared_ptr<route> r) { route_ = std::move(r); }

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
  std::shared_ptr<route> route_;
  enum end_state : int { open, by_actor, by_deadline };
  std::atomic<int> end_{open};
  bool deadline_said_ = false; ///< touched only by the actor holding the forward
  std::optional<clock::time_point> deadline_;
  std::chrono::milliseconds allowed_{0};
  // Where the forward is (with a deadline), and where it was when its
  // deadline ended it: copies, since a node actor (and its name) may be gone
  // by the time a timer or the caller reads them.
  mutable std::mutex where_lock_;
  std::string at_;
  std::optional<std::string> struck_;
  void strike_here() {
    std::lock_guard guard{where_lock_};
    struck_ = at_;
  }
  std::unique_ptr<std::mutex> calling_; ///< with a deadline: held while callables run
  bool callables_off_ = false;
  // Says `broke` for the deadline, once, when the deadline ended the forward.
  SOMA_API_LOCAL void say_expired(const std::string& node, caf::execution_unit* host);
  std::vector<bool> dropped_; // callables that threw: told nothing more
  // For whole-forward watchers: the letter (detail/letter.hpp) this
  // forward's facts are gathered into, taken at its first fact and sent at
  // its end, and how many of its facts are this forward's so far. A fact is
  // copied into the capacity the letter's last forward left: nothing is
  // allocated, and nothing freed that another thread made.
  letter<forward_facts>* gathering_ = nullptr;
  std::size_t gathered_ = 0;
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
[[nodiscard]] SOMA_API_LOCAL std::string what(std::exception_ptr e);

/// The engine's facts, stamped in one place.
fact ran_fact(const std::string& node, std::int64_t began_us, std::int64_t took_us);
SOMA_API_LOCAL fact failed_fact(const std::string& node, const std::string& error,
                                std::int64_t began_us, std::int64_t took_us);
SOMA_API_LOCAL fact broke_fact(const std::string& node, const std::string& error, std::int64_t took_us);
fact finished_fact(std::int64_t took_us);
SOMA_API_LOCAL fact recalled_fact(const std::string& node, std::int64_t began_us,
                                 std::int64_t took_us, std::size_t bytes);
SOMA_API_LOCAL fact kept_fact(const std::string& node, std::int64_t began_us,
                             std::int64_t took_us, std::size_t bytes);

} // namespace soma::detail

SOMA_API_END
