// Drawing a graph: its declaration (nodes in order, where each runs, which
// are frozen or cached) drawn having never run.
//
//   drawing_a_graph [FILE.svg|FILE.png]     (default: graph.svg)
//
// Under `soma plot graph drawing_a_graph -o FILE` ($SOMA_DRAW_GRAPH set) it
// draws to the file soma asked for instead, and stops there.

#include <cstdio>
#include <string>

#include <caf/actor_system.hpp>

#include "seed_nodes.hpp"
#include "soma/draw/declaration.hpp"
#include "soma/soma.hpp"

int main(int argc, char** argv) {
  soma::system_config cfg;
  caf::actor_system system{cfg};
  //! [asked]
  auto g = soma::graph::somatize(system, Tokenize{}.named("tokenize").frozen("v1").cached()
                                           >> Embed{}.named("embed").at("w1")
                                           >> Score{}.named("score"));
  if (soma::draw::draw_if_asked(g.declaration(), "tokenize >> embed >> score"))
    return 0;
  //! [asked]
  std::string file = argc > 1 ? argv[1] : "graph.svg";
  soma::draw::graph(g.declaration(), "tokenize >> embed >> score").save(file);
  std::printf("drew %zu nodes to %s\n", g.declaration().size(), file.c_str());
}
