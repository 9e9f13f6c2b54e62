#pragma once

// A writer that lives until killed, for tests that need a run whose writer
// is alive (soma runs says running) or was killed mid-recording (died):
// make_store --recording and runs_store --recording.

#include <cstdio>

#include <unistd.h>

#include "soma/recorder.hpp"

namespace soma_test {

/// Records a forward of `g` into `s` with `o`, prints "recording" on
/// stdout once it is durable, then holds its recorder open (its run stands
/// running) until the process is killed: it waits for a signal, doing
/// nothing else.
template <class Graph>
[[noreturn]] void record_until_killed(caf::actor_system& sys, const soma::store& s, const Graph& g,
                                      soma::recorder_options o) {
  soma::recorder rec{sys, s, std::move(o)};
  g.forward("the quick brown fox", {.watching = rec});
  rec.flush();
  std::printf("recording\n");
  std::fflush(stdout);
  for (;;)
    ::pause();
}

} // namespace soma_test
