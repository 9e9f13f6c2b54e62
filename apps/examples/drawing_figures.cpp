// Drawing figures: a run recorded as in the seed (40 forwards, a loss that
// decays, 1.5 * 0.9^step + 0.2), then every figure soma draws, as PNG and
// SVG. The PNGs in docs/figures/ are this program's output.
//
//   drawing_figures [DIR]     (default: .; the store goes to DIR/store)

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>

#include <caf/actor_system.hpp>

#include "seed_nodes.hpp"
#include "soma/draw/declaration.hpp"
#include "soma/draw/progress.hpp"
#include "soma/draw/spent.hpp"
#include "soma/live.hpp"
#include "soma/recorder.hpp"
#include "soma/soma.hpp"
#include "soma/store/hosts.hpp"

namespace {

void save(const soma::draw::figure& f, const std::string& dir, const std::string& name) {
  f.save(dir + "/" + name + ".png");
  f.save(dir + "/" + name + ".svg");
  std::printf("%s/%s.png and .svg: %s\n", dir.c_str(), name.c_str(), f.title().c_str());
}

} // namespace

int main(int argc, char** argv) {
  std::string dir = argc > 1 ? argv[1] : ".";
  std::filesystem::create_directories(dir);
  std::filesystem::remove_all(dir + "/store");
  soma::system_config cfg;
  caf::actor_system system{cfg};
  auto g = soma::graph::somatize(system, Tokenize{}.named("tokenize") >> Embed{}.named("embed")
                                           >> Score{}.named("score"));
  soma::store store{dir + "/store"};
  // The same facts go to a recorder and to a live view: both numbers agree.
  soma::live live{system, {.run = "tuesday"}};
  {
    soma::recorder recorder{system, store, {.run = "tuesday", .summarising = {"loss"}}};
    for (int step = 0; step < 40; ++step) {
      g.forward("the quick brown fox jumps", {.watching = {recorder, live}});
      soma::fact loss{"loss", {{"value", 1.5 * std::pow(0.9, step) + 0.2}}};
      recorder.tell(loss);
      live.tell(loss);
    }
  }

  save(soma::draw::progress(store, "tuesday"), dir, "progress");
  save(live.figure(), dir, "live");
  save(soma::draw::spent(store, "tuesday"), dir, "spent");
  // A graph is drawn from its declaration, having never run: this one keeps
  // tokenize's outputs and sends embed to a worker called w1.
  auto declared = soma::graph::somatize(
    system, Tokenize{}.named("tokenize").frozen("v1").cached() >> Embed{}.named("embed").at("w1")
              >> Score{}.named("score"));
  save(soma::draw::graph(declared.declaration(), "tokenize >> embed >> score"), dir, "graph");

  // machines: apps/examples/a_fleet.cpp draws it from real runs with workers.
  std::printf("live and progress drew %s figure\n",
              live.figure() == soma::draw::progress(store, "tuesday") ? "the same" : "a different");
}
