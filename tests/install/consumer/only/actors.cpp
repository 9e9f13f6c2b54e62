// Links soma::actors alone: a graph built, run and declared, with no
// figures library (drawing lives in soma::draw).
#include <cstdio>
#include <string>

#include <soma/graph.hpp>
#include <soma/system_config.hpp>

#include "length.hpp"

int main() {
  soma::system_config cfg;
  caf::actor_system sys{cfg};
  auto g = soma::graph::somatize(sys, Length{}.named("length"));
  int n = g.forward("actors");
  std::printf("actors: %d, %zu node(s) declared\n", n, g.declaration().size());
  return n == 6 && g.declaration().size() == 1 ? 0 : 1;
}
