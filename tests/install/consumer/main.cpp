// Built against an installed soma: one node, one forward, its facts counted.
#include <cstdio>
#include <string>

#include <soma/soma.hpp>
#include <soma/version.hpp>

struct Length : soma::node<Length, std::string, int> {
  Out forward(const In& s, soma::context&) override { return static_cast<int>(s.size()); }
};

int main() {
  soma::system_config cfg;
  caf::actor_system sys{cfg};
  auto g = soma::graph::somatize(sys, Length{}.named("length"));
  int facts = 0;
  int n = g.forward("hello", {.watching = [&](const soma::fact&) { ++facts; }});
  std::printf("soma %s: %d %d\n", soma::version, n, facts);
  return n == 5 && facts == 2 ? 0 : 1;
}
