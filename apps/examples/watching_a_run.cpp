// Watching a run: the seed's three-node graph, run with the JSON-lines
// printer watching. A forward returns a value when it is over; its watchers
// are told what happens while it is going.

#include <cstdio>

#include <caf/actor_system.hpp>

#include "seed_nodes.hpp"
#include "soma/soma.hpp"

int main() {
  //! [watched]
  soma::system_config cfg;
  caf::actor_system system{cfg};

  auto g = soma::graph::somatize(system, Tokenize{}.named("tokenize") >> Embed{}.named("embed")
                                           >> Score{}.named("score"));

  double value = g.forward("the quick brown fox", {.watching = soma::print});
  //! [watched]
  std::printf("%g\n", value);
}
