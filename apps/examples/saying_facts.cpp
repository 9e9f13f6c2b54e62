// A node that says things: how far it is through a collection (`items`), and
// a fact of its own, told through its context in order with the engine's.

#include <cstdio>
#include <vector>

#include <caf/actor_system.hpp>

#include "soma/soma.hpp"

//! [walk]
struct Walk : soma::node<Walk, std::vector<int>, int> {
  Out forward(const In& xs, soma::context& ctx) override {
    int sum = 0;
    for (size_t i = 0; i < xs.size(); ++i) {
      sum += xs[i];
      ctx.items(i + 1, xs.size());
    }
    ctx.tell(soma::fact{"sum", {{"value", sum}}}); // numbers are written as shortest text
    return sum;
  }
};
//! [walk]

int main() {
  soma::system_config cfg;
  caf::actor_system system{cfg};
  auto g = soma::graph::somatize(system, Walk{}.named("walk"));
  std::printf("%d\n", g.forward({1, 2, 3}, {.watching = soma::print}));
}
