#pragma once

/// @file
/// soma::claimant: a machine that claims trials of a study from a shared
/// store and runs them (docs/trials.md). It is a machine of the fleet like a
/// worker: it writes readings of itself on its own clock (a reporter actor),
/// with the trials it finished and the study it claims from, so `soma
/// standing` shows an idle claimant beside an idle worker.
///
/// ```
/// soma::values sweep(soma::trial& t) {
///   auto lr = t.param<double>("lr");
///   soma::recorder rec{t.system(), t.store(), {.run = t.run(), .summarising = {"loss"}}};
///   ... forwards, watched by rec ...
///   return {{"loss", final_loss}};
/// }
///
/// soma::claimant c{system, store, "lr"};
/// c.run(sweep);   // until no trial waits
/// ```
///
/// A claimant that dies leaves its trial claimed: the engine never times a
/// claim out. soma::reclaim hands it back by a stated rule (soma/store/
/// trials.hpp).

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <caf/actor.hpp>
#include <caf/fwd.hpp>

#include "soma/export.hpp"
#include "soma/store/store.hpp"
#include "soma/trials/rows.hpp"
#include "soma/trials/trial.hpp"

SOMA_API_BEGIN

namespace soma {

class machine_sampler;

struct claimant_options {
  /// Between two readings of itself.
  std::chrono::microseconds reporting = std::chrono::milliseconds(500);
  /// Counted into its readings as slices served (soma-node --claim, which
  /// serves slices too); none: 0.
  std::function<std::uint64_t()> served;
  /// Where it says what it did (a trial refused, a reading not written);
  /// none: standard error, one line each.
  std::function<void(const std::string&)> log;
  /// Told of every reading it writes, whether it was written (soma-node
  /// --claim counts them for --metrics); from its reporter's thread too.
  std::function<void(bool written)> wrote;
  /// Told of each reading its reporter dropped because the store could not
  /// be reached (it tries again with a backoff, soma/reporter.hpp).
  std::function<void()> dropped;
  /// Where the worker it runs in listens (host:port), the node types it
  /// serves and the store it serves, said in each reading (soma-node
  /// --claim); empty: nothing.
  std::string listens;
  std::vector<std::string> serves;
  std::string serves_store;
};

struct claim_options {
  /// When no trial waits, wait this long for one to be added before
  /// returning; zero: return at once.
  std::chrono::milliseconds wait{0};
  /// Stop after this many trials.
  std::optional<std::uint64_t> at_most;
};

class claimant {
public:
  /// A claimant of `study` in `s`: writes its first reading now (so that it
  /// is a machine of the fleet before it holds any trial), then one every
  /// `options.reporting`. Throws store_error when that first reading cannot
  /// be written.
  claimant(caf::actor_system& sys, store s, std::string study, claimant_options options = {});
  /// Stops its reporter, and writes a last reading (its final count).
  ~claimant();
  claimant(const claimant&) = delete;
  claimant& operator=(const claimant&) = delete;

  /// Its machine id in its readings and claims: hostname-pid.
  [[nodiscard]] const std::string& id() const noexcept;
  /// Trials it finished (done or broke).
  [[nodiscard]] std::uint64_t finished() const noexcept { return *counted_; }

  /// Claims the next waiting trial (soma::claim_trial), waiting up to `wait`.
  [[nodiscard]] std::optional<trial_row> claim(std::chrono::milliseconds wait = {});
  /// Ends a claimed trial: done with `result`, broke with `error`, or let go
  /// (handed back by its own claimant, `why` kept with the attempt). Throw
  /// trial_refused when the trial was handed back meanwhile.
  void done(const trial_row& t, const values& result);
  void broke(const trial_row& t, const std::string& error);
  void let_go(const trial_row& t, const std::string& why);

  /// Claims and runs trials with `f` until none waits (after `o.wait`),
  /// `o.at_most` ran, or stop() was called; returns how many it finished.
  /// A trial handed back while it ran is logged, and its result not kept.
  std::uint64_t run(const trial_function& f, claim_options o = {});

  /// Makes run() return after the trial in hand (safe from any thread).
  void stop() noexcept { stopping_ = true; }
  [[nodiscard]] bool stopped() const noexcept { return stopping_; }

  /// Stops, and lets go of the trial run() has in hand, if any, saying
  /// `why` (kept with the attempt): the next claim takes it at once, where a
  /// claimant that just died would hold it until reclaimed. What the trial's
  /// function still finds is then refused. Safe from any thread; whether
  /// one was let go.
  bool stop_and_let_go(const std::string& why);

private:
  caf::actor_system& sys_;
  store store_;
  std::string study_;
  claimant_options options_;
  std::shared_ptr<machine_sampler> sampler_;
  std::shared_ptr<std::atomic<std::uint64_t>> counted_;
  std::atomic<bool> stopping_{false};
  std::mutex in_hand_lock_;
  std::optional<trial_row> in_hand_; ///< the trial run() runs now
  caf::actor reporter_;
};

} // namespace soma

SOMA_API_END
