// A process that records the seed graph into a store, for tests that need a
// second writer or a process to kill.
//
//   record_child STORE RUN COUNT FLUSH_EVERY [PACE_MS]
//
// STORE is a directory or a served store (soma://host:port).
// Records COUNT forwards (0: until killed), each with a loss fact told after
// it; every FLUSH_EVERY forwards it flushes and prints "durable N" (N
// forwards are in the store for certain). With PACE_MS, a forward every
// PACE_MS milliseconds at most: a writer a watcher can follow forward by
// forward.

#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <chrono>

#include "seed_nodes.hpp"
#include "soma/recorder.hpp"
#include "soma/soma.hpp" // soma::open_store too: the umbrella has it

int main(int argc, char** argv) {
  if (argc != 5 && argc != 6) {
    std::fprintf(stderr, "usage: record_child STORE RUN COUNT FLUSH_EVERY [PACE_MS]\n");
    return 2;
  }
  long count = std::atol(argv[3]);
  long every = std::max(1L, std::atol(argv[4]));
  auto pace = std::chrono::milliseconds{argc == 6 ? std::atol(argv[5]) : 0};
  soma::system_config cfg;
  caf::actor_system system{cfg};
  auto g = soma::graph::somatize(system, Tokenize{}.named("tokenize") >> Embed{}.named("embed")
                                           >> Score{}.named("score"));
  auto opened = soma::open_store(system, argv[1]);
  if (!opened) {
    std::fprintf(stderr, "record_child: %s\n", system.render(opened.error()).c_str());
    return 2;
  }
  auto store = std::move(*opened);
  soma::recorder rec{system, store, {.run = argv[2], .summarising = {"loss"}}};
  for (long i = 0; count == 0 || i < count; ++i) {
    g.forward("the quick brown fox jumps", {.watching = rec});
    rec.tell(soma::fact{"loss", {{"value", static_cast<double>(i)}}});
    if ((i + 1) % every == 0) {
      rec.flush();
      std::printf("durable %ld\n", i + 1);
      std::fflush(stdout);
    }
    if (pace.count() > 0)
      std::this_thread::sleep_for(pace);
  }
}
