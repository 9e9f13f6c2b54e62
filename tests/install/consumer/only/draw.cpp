// Links soma::draw alone: a graph's declaration drawn, through soma/draw.hpp.
#include <cstdio>
#include <string>

#include <soma/draw.hpp>
#include <soma/graph.hpp>
#include <soma/system_config.hpp>

#include "length.hpp"

int main() {
  soma::system_config cfg;
  caf::actor_system sys{cfg};
  auto g = soma::graph::somatize(sys, Length{}.named("length"));
  auto svg = soma::draw::graph(g, "alone").svg();
  std::printf("draw: %zu bytes of SVG\n", svg.size());
  return svg.find("length") != std::string::npos ? 0 : 1;
}
