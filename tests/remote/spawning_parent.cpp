// A program that spawns a worker and is then killed, for shutdown_test:
// spawns `soma-node --nodes LIBRARY` (argv[1], argv[2]) with
// soma::worker::spawn, runs one forward there, prints the worker's pid on
// a line of stdout, and waits to be killed (SIGKILL, the test's fault) or
// stopped (SIGTERM, the test's cleanup), 60 s at most.

#include <signal.h>

#include <iostream>

#include "remote_fixture.hpp"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: spawning_parent SOMA_NODE LIBRARY\n";
    return 2;
  }
  // Blocked before the actor system starts its threads, which inherit it.
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop, nullptr);
  soma::system_config cfg;
  caf::actor_system sys{cfg};
  auto w = soma::worker::spawn(sys, {argv[1], "--nodes", argv[2]});
  auto broker = soma::broker::embedded({{"w1", w}});
  auto g = soma::graph::somatize(sys, Twice{}.named("b").at("w1"));
  if (g.forward(21, {.broker = broker}) != 42)
    return 1;
  std::cout << w.pid() << std::endl;
  timespec bound{60, 0};
  return sigtimedwait(&stop, nullptr, &bound) == SIGTERM ? 0 : 1;
}
