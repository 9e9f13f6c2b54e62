#include "soma/graph/parking.hpp"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>
#include <ctime>
#include <thread>

namespace soma::detail {

namespace {

inline void cpu_relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// How long a waiter spins before it sleeps. Long enough to cover a forward
// of cheap nodes, short enough not to matter when the forward is slow.
constexpr auto spin_for = std::chrono::microseconds{40};

} // namespace

bool parking::wait_until(std::chrono::steady_clock::time_point until) noexcept {
  if (released())
    return true;
  auto spin_until = std::chrono::steady_clock::now() + spin_for;
  for (unsigned i = 1;; ++i) {
    if (released())
      return true;
    if (i % 64 == 0) {
      if (std::chrono::steady_clock::now() > spin_until)
        break;
      // Let an actor thread that shares this core run.
      std::this_thread::yield();
    } else {
      cpu_relax();
    }
  }
  // Announced before looking once more; release() stores, then looks at
  // sleeping_ (both sequentially consistent), so one of them sees the other.
  sleeping_.store(true);
  while (!released()) {
    timespec ts{};
    timespec* timeout = nullptr; // forever
    if (until != std::chrono::steady_clock::time_point::max()) {
      auto left = until - std::chrono::steady_clock::now();
      if (left <= std::chrono::steady_clock::duration::zero())
        return released();
      auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(left).count();
      ts = {static_cast<time_t>(ns / 1'000'000'000), static_cast<long>(ns % 1'000'000'000)};
      timeout = &ts;
    }
    // Returns at once when state_ is no longer 0; EINTR and timeouts loop.
    syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&state_), FUTEX_WAIT_PRIVATE, 0u, timeout,
            nullptr, 0);
  }
  return true;
}

void parking::wait() noexcept {
  (void)wait_until(std::chrono::steady_clock::time_point::max());
}

void parking::release() noexcept {
  state_.store(1);
  if (sleeping_.load())
    syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&state_), FUTEX_WAKE_PRIVATE, 1, nullptr,
            nullptr, 0);
}

} // namespace soma::detail
