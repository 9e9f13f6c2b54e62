#include "soma/worker/stop_deadline.hpp"

#include <unistd.h>

namespace soma::serve {

stop_deadline::stop_deadline(std::chrono::milliseconds bound, std::function<int()> cut_short) {
  auto until = std::chrono::steady_clock::now() + bound;
  thread_ = std::thread{[this, until, cut_short = std::move(cut_short)] {
    std::unique_lock guard{lock_};
    if (changed_.wait_until(guard, until, [this] { return disarmed_; }))
      return;
    guard.unlock();
    int status = 1;
    try {
      status = cut_short();
    } catch (...) {
      // Ending the process matters more than saying why.
    }
    ::_exit(status);
  }};
}

stop_deadline::~stop_deadline() {
  disarm();
  if (thread_.joinable())
    thread_.join();
}

void stop_deadline::disarm() {
  {
    std::lock_guard guard{lock_};
    disarmed_ = true;
  }
  changed_.notify_all();
}

} // namespace soma::serve
