#pragma once

/// @file
/// soma::serve::stop_request: a stop asked of a thread that waits between
/// tries (a claimant waiting for its store to be reachable), so that a
/// worker's stop is not held up by a wait (--stop-within).

#include <chrono>
#include <condition_variable>
#include <mutex>

namespace soma::serve {

/// A flag one thread raises and another waits on. Safe from any thread.
class stop_request {
public:
  /// Asks for the stop: every wait_for() returns at once, now and later.
  void request() {
    {
      std::lock_guard hold{lock_};
      requested_ = true;
    }
    changed_.notify_all();
  }

  /// Whether the stop was asked.
  [[nodiscard]] bool requested() {
    std::lock_guard hold{lock_};
    return requested_;
  }

  /// Waits `d`, or until the stop is asked; whether to go on (not asked).
  [[nodiscard]] bool wait_for(std::chrono::milliseconds d) {
    std::unique_lock hold{lock_};
    return !changed_.wait_for(hold, d, [this] { return requested_; });
  }

private:
  std::mutex lock_;
  std::condition_variable changed_;
  bool requested_ = false;
};

} // namespace soma::serve
