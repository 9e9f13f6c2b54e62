// Built against an installed soma: one node, one forward, its facts counted;
// then a node with a setting run on a worker of this project's own.
#include <cstdio>
#include <string>

#include <unistd.h>

#include <soma/soma.hpp>
#include <soma/version.hpp>

#include "nodes.hpp"

struct Length : soma::node<Length, std::string, int> {
  Out forward(const In& s, soma::context&) override { return static_cast<int>(s.size()); }
};

int main(int argc, char** argv) {
  soma::system_config cfg;
  caf::actor_system sys{cfg};
  auto g = soma::graph::somatize(sys, Length{}.named("length"));
  int facts = 0;
  int n = g.forward("hello", {.watching = [&](const soma::fact&) { ++facts; }});
  std::string far = "-";
  if (argc == 3) {
    // argv[1]: the custom worker, argv[2]: the node library it serves.
    auto w = soma::worker::spawn(sys, {argv[1], argv[2]});
    auto broker = soma::broker::embedded({{"w1", w}});
    auto h = soma::graph::somatize(sys, Shout{2}.named("shout").at("w1"));
    far = h.forward("hi", {.broker = broker});
  }
  // soma::soma-node and soma::soma-cli name the installed programs.
  bool programs = ::access(SOMA_NODE_PROGRAM, X_OK) == 0 && ::access(SOMA_CLI_PROGRAM, X_OK) == 0;
  std::printf("soma %s: %d %d %s %s\n", soma::version, n, facts, far.c_str(),
              programs ? "programs" : "no-programs");
  return n == 5 && facts == 2 && (argc != 3 || far == "HIHI") && programs ? 0 : 1;
}
