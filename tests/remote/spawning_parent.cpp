// A program that spawns a worker and is then killed, for shutdown_test:
// spawns `soma-node --nodes LIBRARY` (argv[1], argv[2]) with
// soma::worker::spawn, runs one forward there, prints the worker's pid on
// a line of stdout, and waits, 60 s at most, to be killed.

#include <chrono>
#include <iostream>
#include <thread>

#include "remote_fixture.hpp"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: spawning_parent SOMA_NODE LIBRARY\n";
    return 2;
  }
  soma::system_config cfg;
  caf::actor_system sys{cfg};
  auto w = soma::worker::spawn(sys, {argv[1], "--nodes", argv[2]});
  auto broker = soma::broker::embedded({{"w1", w}});
  auto g = soma::graph::somatize(sys, Twice{}.named("b").at("w1"));
  if (g.forward(21, {.broker = broker}) != 42)
    return 1;
  std::cout << w.pid() << std::endl;
  std::this_thread::sleep_for(std::chrono::seconds(60));
  return 1;
}
