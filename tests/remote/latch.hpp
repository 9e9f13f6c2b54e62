#pragma once

// Proof that a forward is in flight before a fault is injected into it: the
// Held node (test_nodes.hpp) says when it runs over there and waits to be
// let go. A test injects its fault only once the slice was taken, so the
// fault can never land before the forward began or after it ended, and the
// bound it asserts is measured from the fault.

#include <signal.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include <boost/test/unit_test.hpp>

#include "../store/scratch.hpp"
#include "remote_fixture.hpp"
#include "soma/remote/child.hpp"

namespace soma_test {

/// A latch for Held nodes: one directory, one pair of files per forward.
/// Every forward it holds is let go when it goes, so no worker is left
/// waiting on it.
struct latch {
  scratch dir;

  /// The node that holds its slice on this latch.
  Held node() const { return Held{dir.dir}; }

  /// Waits (startup_deadline at most) until forward `n` runs over there.
  void wait_taken(int n) const {
    auto taken = dir / ("taken-" + std::to_string(n));
    BOOST_REQUIRE_MESSAGE(within(startup_deadline, [&] { return std::filesystem::exists(taken); }),
                          "forward " << n << " was not taken over there within " << startup_deadline.count()
                                     << " s");
  }

  /// Lets forward `n` go: its node answers.
  void release(int n) const { std::ofstream{dir / ("go-" + std::to_string(n))} << "go\n"; }

  ~latch() {
    for (int n = 0; n < 64; ++n)
      if (std::filesystem::exists(dir / ("taken-" + std::to_string(n))))
        release(n);
  }
};

/// Whether every thread of `pid` is stopped. SIGSTOP is queued to the
/// process, and the one thread the kernel wakes for it stops the others
/// when it runs: until then (on a busy machine, tens of milliseconds) the
/// others go on, the one that accepts connections among them.
inline bool every_thread_stopped(pid_t pid) {
  std::error_code ignored;
  int threads = 0;
  for (auto& task : std::filesystem::directory_iterator{"/proc/" + std::to_string(pid) + "/task", ignored}) {
    ++threads;
    if (!soma::detail::stopped(std::stoi(task.path().filename().string())))
      return false;
  }
  return threads > 0;
}

/// SIGSTOPs `pid` and waits (startup_deadline at most) until every thread
/// of it is stopped: from then on it answers nothing. The moment of the
/// signal, which is when the fault began.
inline std::chrono::steady_clock::time_point stop_whole(pid_t pid) {
  BOOST_REQUIRE(::kill(pid, SIGSTOP) == 0);
  auto sent = std::chrono::steady_clock::now();
  BOOST_REQUIRE_MESSAGE(within(startup_deadline, [&] { return every_thread_stopped(pid); }),
                        "process " << pid << " still had a running thread " << startup_deadline.count()
                                   << " s after SIGSTOP");
  return sent;
}

} // namespace soma_test
