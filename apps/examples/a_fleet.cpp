// "A fleet": three workers writing readings of themselves into one store,
// one of them never used; a cheap run and a costly run; then who was doing
// what, and whether sending it there was worth it.
//
// Usage: a_fleet [DIR]   (the store and the two machines figures go there;
//                          default: a fresh directory under $TMPDIR, else /tmp)

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <thread>

#include <caf/actor_system.hpp>

#include "fleet_nodes.hpp"
#include "soma/remote/broker.hpp"
#include "soma/draw/machines.hpp"
#include "soma/graph.hpp"
#include "soma/recorder.hpp"
#include "soma/store/fleet.hpp"
#include "soma/store/readings.hpp"
#include "soma/store/standing.hpp"
#include "soma/system_config.hpp"
#include "soma/remote/worker.hpp"
#include "store_dir.hpp"

namespace {

std::string maybe(const std::optional<double>& x, const char* format) {
  if (!x)
    return "None";
  char buf[32];
  std::snprintf(buf, sizeof buf, format, *x);
  return buf;
}

} // namespace

int main(int argc, char** argv) {
  std::string dir = store_dir(argc, argv, "a-fleet");
  std::filesystem::create_directories(dir);
  // One store for both halves: what the client writes about a run and what
  // each machine writes about itself land where they can be read together.
  const std::string kept = dir + "/store";
  soma::store store{kept};
  soma::system_config cfg;
  caf::actor_system sys{cfg};

  // Three workers with somewhere to write and a clock to write on. A worker
  // holds one catalog per session, so two graphs are two workers.
  auto stood_up = [&] {
    return soma::worker::spawn(sys, {SOMA_NODE_PROGRAM, "--nodes", SOMA_SEED_NODES, "--store", kept,
                                     "--reporting", "0.5"});
  };
  auto busy = stood_up(), later = stood_up(), spare = stood_up();
  std::this_thread::sleep_for(std::chrono::seconds(2));

  //! [standing]
  for (auto& [name, one] : soma::standing(store)) // each machine's latest reading
    std::printf("%s  busy %.2f  served %llu  up %lldus\n", name.c_str(), one.busy,
                static_cast<unsigned long long>(one.served), static_cast<long long>(one.up_us));
  //! [standing]

  // Something cheap, sent away.
  {
    auto cheap = soma::graph::somatize(sys, Cheap{}.named("a") >> Cheap{}.named("b").at("w1"));
    auto b = soma::broker::embedded({{"w1", busy}});
    soma::recorder watching{sys, store, {.run = "cheap"}}; // one recorder for the run
    for (int i = 0; i < 4; ++i)
      cheap.forward(0, {.watching = watching, .broker = b});
  }
  std::printf("\n");
  //! [fleet]
  for (auto& one : soma::fleet(store, "cheap")) // one row per machine of the run
    if (one.slices > 0 || one.host == "here")
      std::printf("{'host': '%s', 'slices': %llu, 'took_us': %lld, 'waiting_us': %lld}\n",
                  one.host.c_str(), static_cast<unsigned long long>(one.slices),
                  static_cast<long long>(one.took_us), static_cast<long long>(one.waiting_us));
  //! [fleet]
  auto drawn = soma::draw::machines(store, "cheap");
  drawn.save(dir + "/machines-cheap.png");
  drawn.save(dir + "/machines-cheap.svg");

  // The same shape with a slice worth the trip.
  {
    auto costly = soma::graph::somatize(sys, Cheap{}.named("a") >> Costly{}.named("b").at("w2"));
    auto b = soma::broker::embedded({{"w2", later}});
    soma::recorder watching{sys, store, {.run = "costly"}};
    for (int i = 0; i < 4; ++i)
      costly.forward(0, {.watching = watching, .broker = b});
  }
  drawn = soma::draw::machines(store, "costly");
  drawn.save(dir + "/machines-costly.png");
  drawn.save(dir + "/machines-costly.svg");
  std::this_thread::sleep_for(std::chrono::milliseconds(600)); // one more reading each

  std::printf("\n");
  for (auto& one : soma::fleet(store, "costly"))
    std::printf("{'host': '%s', 'slices': %llu, 'busy': %s, 'served': %s, 'quiet_s': %s}\n",
                one.host.c_str(), static_cast<unsigned long long>(one.slices),
                maybe(one.busy, "%.2f").c_str(),
                one.served ? std::to_string(*one.served).c_str() : "None",
                maybe(one.quiet_s, "%.1f").c_str());
  std::printf("\nstore and figures: %s\n", dir.c_str());
}
