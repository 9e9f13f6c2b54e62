// The trial functions the tests give `soma-node --claim` (a node library
// with SOMA_TRIAL_FUNCTIONS and no nodes).
//   square: result y = x * x; records x forwards (loss 1/(1+step)) into its run
//   hang:   never returns (a claimant to stop mid-trial)


#include <unistd.h>

#include "seed_nodes.hpp"
#include "soma/node_library.hpp"
#include "soma/soma.hpp"

namespace {

soma::values square(soma::trial& t) {
  auto x = t.param<std::int64_t>("x");
  auto g = soma::graph::somatize(t.system(), Tokenize{}.named("tokenize") >> Embed{}.named("embed"));
  soma::recorder rec{t.system(), t.store(), {.run = t.run(), .summarising = {"loss"}}};
  for (std::int64_t step = 0; step < x; ++step) {
    g.forward("a b c", {.watching = rec});
    rec.tell(soma::fact{"loss", {{"value", 1.0 / (1.0 + static_cast<double>(step))}}});
  }
  rec.flush();
  return {{"y", x * x}};
}

soma::values hang(soma::trial&) {
  for (;;)
    ::pause(); // until a signal ends the process: it is never woken to return
}

} // namespace

SOMA_TRIAL_FUNCTIONS({"square", &square}, {"hang", &hang})
