#include "soma/detail/parking.hpp"

#include <chrono>
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

void parking::wait() noexcept {
  if (released())
    return;
  auto until = std::chrono::steady_clock::now() + spin_for;
  for (unsigned i = 1;; ++i) {
    if (released())
      return;
    if (i % 64 == 0) {
      if (std::chrono::steady_clock::now() > until)
        break;
      // Let an actor thread that shares this core run.
      std::this_thread::yield();
    } else {
      cpu_relax();
    }
  }
  while (!released())
    state_.wait(0, std::memory_order_acquire);
}

void parking::release() noexcept {
  state_.store(1, std::memory_order_release);
  state_.notify_one();
}

} // namespace soma::detail
