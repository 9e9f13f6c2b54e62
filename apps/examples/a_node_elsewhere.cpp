// "A node on another machine": embed runs on a soma-node worker, and what
// happens over there comes back down the open connection, stamped with the
// graph's name for the host. The first trip opens the session and carries
// the worker's reading; the next ones show what a warm trip costs.
//
// Usage: a_node_elsewhere [project|network]  (default project)

#include <cstring>
#include <iostream>

#include <caf/actor_system.hpp>

#include "seed_nodes.hpp"
#include "soma/remote/broker.hpp"
#include "soma/graph.hpp"
#include "soma/print.hpp"
#include "soma/system_config.hpp"
#include "soma/remote/worker.hpp"

int main(int argc, char** argv) {
  bool network = argc > 1 && std::strcmp(argv[1], "network") == 0;
  //! [client]
  soma::system_config cfg; // loads the middleman
  caf::actor_system sys{cfg};

  // mode::project: the worker is given the library; mode::network: the
  // client ships it, and the worker must accept code.
  auto worker = network ? soma::worker::spawn(sys, {SOMA_NODE_PROGRAM, "--accept-code"},
                                              soma::mode::network)
                        : soma::worker::spawn(sys, {SOMA_NODE_PROGRAM, "--nodes", SOMA_SEED_NODES},
                                              soma::mode::project);
  auto broker = soma::broker::embedded({{"w1", worker}});
  auto remote = soma::graph::somatize(sys, Tokenize{}.named("tokenize")
                                             >> Embed{}.named("embed").at("w1")
                                             >> Score{}.named("score"));

  std::cout << remote.forward("the quick brown fox", {.watching = soma::print, .broker = broker})
            << "\n";
  //! [client]
  for (int again = 0; again < 3; ++again)
    remote.forward("with the worker already up",
                   {.watching = [](const soma::fact& f) {
                      if (f.name == "left")
                        std::cout << soma::to_json(f) << "\n";
                    },
                    .broker = broker});
}
