// runs_store: writes the stores tests/web/runs_test.py reads through the
// runs page (issue 26): runs that carry params and tags, a run whose writer
// is killed mid-recording, and a store nobody has written for a while.
//
//   runs_store STORE --runs            records, with the seed's graph, runs
//                                      lr.1 (lr=0.1, seed=1; tag baseline;
//                                      3 forwards), lr.3 (lr=0.3, seed=2;
//                                      tag sweep; 5), lr.03 (lr=0.03,
//                                      seed=3; tags sweep and short; 2) and
//                                      plain (no params, no tags; 1), each
//                                      closed by its recorder (finished);
//                                      lr.3 by two recorders, one after
//                                      the other: 5 forwards, then 3 more
//                                      (two executions).
//   runs_store STORE --recording RUN   records a forward of RUN (lr=0.9; tag
//                                      sweep), prints "recording" once it is
//                                      durable, and holds the run open until
//                                      killed.
//   runs_store STORE --old-readings S  writes machine old-1's reading dated
//                                      S seconds ago (soma::put_reading; it
//                                      reports every minute), and nothing
//                                      else.

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <string_view>

#include "seed_nodes.hpp"
#include "soma/recorder.hpp"
#include "soma/soma.hpp"
#include "soma/store/readings.hpp"
#include "until_killed.hpp"

namespace {

std::int64_t now_us() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
           std::chrono::system_clock::now().time_since_epoch())
    .count();
}

template <class Graph>
void record(caf::actor_system& sys, const soma::store& s, const Graph& g, std::string run,
            soma::values params, std::vector<std::string> tags, int forwards,
            soma::existing_run existing = soma::existing_run::overwrite) {
  soma::recorder rec{sys, s,
                     {.run = std::move(run), .summarising = {"loss"}, .existing = existing,
                      .params = std::move(params), .tags = std::move(tags)}};
  for (int i = 0; i < forwards; ++i) {
    g.forward("the quick brown fox jumps", {.watching = rec});
    rec.tell(soma::fact{"loss", {{"value", 1.0 / (i + 1)}}});
  }
  rec.flush();
}

} // namespace

int main(int argc, char** argv) {
  std::string_view mode = argc >= 3 ? argv[2] : "";
  bool ok = (argc == 3 && mode == "--runs") || (argc == 4 && mode == "--recording")
            || (argc == 4 && mode == "--old-readings");
  if (!ok) {
    std::fprintf(stderr, "usage: runs_store STORE --runs | --recording RUN | --old-readings SECONDS\n");
    return 2;
  }
  try {
    soma::store s{argv[1]};
    if (mode == "--old-readings") {
      soma::reading r;
      r.id = "old-1";
      r.cores = 2;
      // Reporting every minute: a fresh one stays fresh (not stale) for the
      // three minutes a page may take to see it on a loaded machine.
      r.every_us = 60'000'000;
      r.when_us = now_us() - std::atoll(argv[3]) * 1'000'000;
      soma::put_reading(s, r);
      return 0;
    }
    soma::system_config cfg;
    caf::actor_system sys{cfg};
    auto g = soma::graph::somatize(sys, Tokenize{}.named("tokenize") >> Embed{}.named("embed")
                                          >> Score{}.named("score"));
    if (mode == "--runs") {
      record(sys, s, g, "lr.1", {{"lr", 0.1}, {"seed", std::int64_t{1}}}, {"baseline"}, 3);
      record(sys, s, g, "lr.3", {{"lr", 0.3}, {"seed", std::int64_t{2}}}, {"sweep"}, 5);
      record(sys, s, g, "lr.3", {{"lr", 0.3}, {"seed", std::int64_t{2}}}, {"sweep"}, 3,
             soma::existing_run::continue_run);
      record(sys, s, g, "lr.03", {{"lr", 0.03}, {"seed", std::int64_t{3}}}, {"sweep", "short"}, 2);
      record(sys, s, g, "plain", {}, {}, 1);
      return 0;
    }
    soma_test::record_until_killed(sys, s, g, {.run = argv[3], .params = {{"lr", 0.9}}, .tags = {"sweep"}});
  } catch (const std::exception& e) {
    std::fprintf(stderr, "runs_store: %s\n", e.what());
    return 1;
  }
}
