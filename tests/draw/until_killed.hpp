#pragma once

// A writer that lives until killed, for tests that need a run whose writer
// is alive (soma runs says running) or was killed mid-recording (died):
// make_store --recording and runs_store --recording.

#include <chrono>
#include <cstdio>
#include <thread>

#include "soma/recorder.hpp"

namespace soma_test {

/// Records forwards of `g` into `s` with `o`, one every 20 ms, until the
/// process is killed; prints "recording" on stdout once the first is
/// durable.
template <class Graph>
[[noreturn]] void record_until_killed(caf::actor_system& sys, const soma::store& s, const Graph& g,
                                      soma::recorder_options o) {
  soma::recorder rec{sys, s, std::move(o)};
  for (long i = 0;; ++i) {
    g.forward("the quick brown fox", {.watching = rec});
    if (i == 0) {
      rec.flush();
      std::printf("recording\n");
      std::fflush(stdout);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

} // namespace soma_test
