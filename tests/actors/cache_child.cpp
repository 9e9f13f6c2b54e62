// One forward of the seed graph with tokenize frozen and cached in STORE;
// prints what it was told, "fact node" comma-separated, on one line.
//
//   cache_child STORE TEXT

#include <cstdio>
#include <string>

#include "seed_nodes.hpp"
#include "soma/soma.hpp"

int main(int argc, char** argv) {
  if (argc != 3)
    return 2;
  soma::system_config cfg;
  caf::actor_system system{cfg};
  auto g = soma::graph::somatize(system, Tokenize{}.named("tokenize").frozen().cached()
                                           >> Embed{}.named("embed") >> Score{}.named("score"));
  std::string said;
  g.forward(argv[2], {.watching = [&](const soma::fact& f) {
                        said += (said.empty() ? "" : ",") + f.name
                                + (f.has("node") ? " " + std::string{f["node"].text()} : "");
                      },
                      .store = soma::store{argv[1]}});
  std::printf("%s\n", said.c_str());
}
