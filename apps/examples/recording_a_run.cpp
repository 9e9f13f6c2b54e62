// Recording a run: a recorder keeps one record per forward in an LMDB store,
// and the readers give it back at a known price.
//
//   recording_a_run [STORE]     (default: $SOMA_STORE, else ./soma-store)

#include <cmath>
#include <cstdio>
#include <string>

#include <caf/actor_system.hpp>

#include "seed_nodes.hpp"
#include "soma/recorder.hpp"
#include "soma/soma.hpp"
#include "soma/store/readers.hpp"

int main(int argc, char** argv) {
  soma::system_config cfg;
  caf::actor_system system{cfg};
  auto g = soma::graph::somatize(system, Tokenize{}.named("tokenize") >> Embed{}.named("embed")
                                           >> Score{}.named("score"));

  // Opens, or creates, an LMDB environment.
  soma::store store{argc > 1 ? argv[1] : soma::store::default_path()};
  {
    //! [recorded]
    // What the run was goes with it: `soma runs` shows it and finds runs by it.
    soma::recorder recorder{system, store,
                            {.run = "tuesday", .summarising = {"loss"},
                             .params = {{"decay", 0.93}}, .tags = {"seed"}}};
    for (int step = 0; step < 40; ++step) {
      g.forward("the quick brown fox jumps", {.watching = recorder});
      // A level above the engine says its own things, through the same door.
      // The core never learns what a loss is: the two vocabularies meet in
      // the record.
      recorder.tell(soma::fact{"loss", {{"value", 2.0 * std::pow(0.93, step) + 0.1}}});
    }
    //! [recorded]
    recorder.flush();
    std::printf("%s -> %zu records\n\n", recorder.run().c_str(), store.bound().size());
  }

  for (auto& r : soma::runs(store))
    std::printf("run %s: %lu forwards, %lu broke, took_us %ld, first %ld, last %ld\n",
                r.run.c_str(), r.forwards, r.broke, r.took_us, r.first, r.last);

  auto forwards = soma::forwards(store, "tuesday");
  for (size_t i = 0; i < 3 && i < forwards.size(); ++i) {
    auto& f = forwards[i];
    std::printf("forward %lu: %s, %u nodes, took_us %ld", f.forward,
                std::string{soma::to_string(f.state)}.c_str(), f.nodes, f.took_us);
    for (auto& s : f.summary)
      std::printf(", %s %s", s.key.c_str(), s.value.str().c_str());
    std::printf(", when %ld\n", f.when_s());
  }

  std::printf("\ncurve of loss: %s\n", std::string{soma::to_string(soma::curve_costs(store, "tuesday"))}.c_str());
  auto loss = soma::curve(store, "tuesday");
  for (size_t i = 0; i < 5 && i < loss.size(); ++i)
    std::printf("  (%lu, %s)\n", loss[i].first, soma::text(loss[i].second).c_str());

  std::printf("\nfacts of forward 0:\n");
  for (auto& f : soma::facts(store, "tuesday", 0))
    std::printf("  %s\n", soma::to_json(f).c_str());

  std::printf("\nnodes:\n");
  for (auto& n : soma::nodes(store, "tuesday"))
    std::printf("  %-9s ran %lu, recalled %lu, failed %lu, took_us %ld, mean_us %s\n", n.node.c_str(),
                n.ran, n.recalled, n.failed, n.took_us, soma::text(n.mean_us).c_str());
}
