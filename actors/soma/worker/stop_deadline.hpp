#pragma once

/// @file
/// soma::serve::stop_deadline: a worker's orderly stop, bounded.

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

#include "soma/export.hpp"

namespace soma::serve {

/// Ends the process when an orderly stop takes longer than its bound.
///
/// CAF's actor system, when destroyed, waits for every detached actor to
/// end, and a session running a slow node (or blocked on a peer) would keep
/// it waiting without limit (../shared/notes/caf-0.17.md). A worker arms a
/// stop_deadline when it is told to stop; when disarm() has not been called
/// within the bound, `cut_short` runs on the deadline's own thread (it logs
/// what is abandoned, makes stores durable, removes what must not be left
/// behind) and returns the status the process then ends with, through
/// `_exit`, skipping destructors that could block. Committed LMDB transactions survive that; nothing else
/// the process held matters once it is gone.
class SOMA_API_EXPORT stop_deadline {
public:
  /// Starts the clock. `cut_short` must not block for long: it runs inside
  /// the bound's margin.
  stop_deadline(std::chrono::milliseconds bound, std::function<int()> cut_short);

  /// Disarms the deadline (if still armed) and joins its thread.
  ~stop_deadline();

  stop_deadline(const stop_deadline&) = delete;
  stop_deadline& operator=(const stop_deadline&) = delete;

  /// The stop finished in time: the process is not ended.
  void disarm();

private:
  std::mutex lock_;
  std::condition_variable changed_;
  bool disarmed_ = false;
  std::thread thread_;
};

} // namespace soma::serve
