#pragma once

/// @file
/// `soma-node --claim STUDY [--trial NAME] [--claim-wait S]`: the worker
/// claims the trials of STUDY from --store one at a time and runs each with
/// a trial function of its node libraries (docs/trials.md), on a thread of
/// its own beside the slices it serves, until none waits; then it tells the
/// worker to stop (claims_ended()). Its claimant writes the worker's
/// readings meanwhile, as a reporter would.

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <caf/fwd.hpp>

#include "options.hpp"
#include "soma/detail/libraries.hpp"
#include "soma/store/store.hpp"
#include "soma/worker/stop_request.hpp"
#include "soma/worker/worker_state.hpp"

namespace soma {
class backoff;
class claimant;
} // namespace soma

namespace soma::node_cli {

/// The claims of one worker: nothing runs until start(), and nothing at all
/// without --claim. Made before the actor system (the stop deadline asks
/// running() while the system winds down); join() lets go of the claimant,
/// which uses the system, before the system goes.
class claims {
public:
  /// `opt` outlives this.
  explicit claims(const options& opt) : opt_(opt) {}

  /// Joins the thread, if join() did not.
  ~claims();

  claims(const claims&) = delete;
  claims& operator=(const claims&) = delete;

  /// Finds the trial function before the worker listens, when --store is a
  /// directory (`opened`); a served store's is found once it is reached.
  /// Returns false once stderr said why there is none (exit_usage): no such
  /// study, no such trial function, or none the libraries give.
  [[nodiscard]] bool find_function(const serve::worker_state& worker,
                                   const std::optional<store>& opened);

  /// What the claims need of the worker, given once it listens.
  struct context {
    caf::actor_system& sys;
    serve::worker_state& worker;
    std::optional<store> opened;      ///< --store, a directory
    std::function<store()> reach;     ///< --store, a served store (reporting.hpp)
    std::string listens;              ///< host:port, for its readings
    std::vector<std::string> serves;  ///< the node types it serves, for its readings
    std::string serves_store;         ///< the store it serves (--serve-store), or ""
  };

  /// Starts claiming on a thread of its own (with --claim; else nothing).
  void start(context ctx);

  /// Asks the claims to stop: ends a wait for the store and, on SIGTERM,
  /// SIGINT or the lifeline closing, stops the claimant and lets go of the
  /// trial in hand, which the next claim takes.
  void stop(int signal);

  /// Waits for the thread to end (a trial function may hold it up: the
  /// stop deadline bounds that), then lets go of the claimant.
  void join();

  /// How they ended: 0 well, 2 for a study or a trial function that cannot
  /// be used, 1 for anything else.
  [[nodiscard]] int status() const noexcept { return status_; }

  /// Whether a trial function may still run. Safe from any thread.
  [[nodiscard]] bool running() const noexcept { return running_; }

private:
  void claim(const context& ctx);
  const detail::trial_function_entry* function_for(const serve::worker_state& worker, const store& from);
  std::shared_ptr<claimant> claimant_for(const context& ctx, const store& from,
                                         const detail::trial_function_entry& function);
  std::uint64_t run_trials(claimant& c, const detail::trial_function_entry& function);
  bool wait_to_retry(backoff& retry, const store_error& e);
  void say_finished(const claimant* c, std::uint64_t n);

  const options& opt_;
  const detail::trial_function_entry* function_ = nullptr; // known before listening, or not yet
  std::atomic<bool> running_{false};  // a trial function may still run
  std::atomic<int> status_{0};
  std::mutex lock_;                   // guards claiming_
  std::shared_ptr<claimant> claiming_;
  serve::stop_request stop_;          // asked on a signal: ends a wait for the store
  std::thread thread_;
};

} // namespace soma::node_cli
