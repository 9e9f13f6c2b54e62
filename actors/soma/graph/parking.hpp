#pragma once

/// @file
/// A one-shot event a blocked caller waits on: spin briefly, then sleep.
///
/// Part of what the templates of soma/graph.hpp compile in your program, so
/// it is installed; it is not an API: its names are in soma::detail and
/// may change with any release.

#include <atomic>
#include <chrono>
#include <cstdint>

#include "soma/export.hpp"

SOMA_API_BEGIN

namespace soma::detail {

/// One thread waits until another releases it, once.
///
/// A forward of cheap nodes ends within microseconds, sooner than a thread
/// can fall asleep and be woken (a condition variable round trip costs about
/// 15 µs here), so the waiter first spins for a short, bounded time and only
/// then sleeps on the futex. release() makes a system call only when the
/// waiter already sleeps.
class parking {
public:
  /// Blocks until release() was called (returns at once if it was).
  void wait() noexcept;

  /// Blocks until release() was called or `until`; whether it was released.
  bool wait_until(std::chrono::steady_clock::time_point until) noexcept;

  /// Wakes the waiter. Everything written before is visible after wait().
  void release() noexcept;

  [[nodiscard]] bool released() const noexcept {
    return state_.load(std::memory_order_acquire) != 0;
  }

private:
  std::atomic<std::uint32_t> state_{0};
  std::atomic<bool> sleeping_{false}; ///< a waiter sleeps on the futex
};

} // namespace soma::detail

SOMA_API_END
