// The trial function of "a sweep" (docs/trials.md): a node library with no
// nodes of its own, only SOMA_TRIAL_FUNCTIONS, for `soma-node --claim`.
//
// lr_sweep runs the seed graph 30 times as if training with learning rate
// `lr`: after each forward it tells the loss a step of gradient descent on
// a quadratic would reach, 0.1 + 2 (1 - lr)^(2 step). Past lr = 2 that
// diverges, and the trial breaks saying so.

#include <chrono>
#include <cmath>
#include <stdexcept>
#include <thread>

#include "seed_nodes.hpp"
#include "soma/node_library.hpp"
#include "soma/soma.hpp"

namespace {

//! [lr_sweep]
soma::values lr_sweep(soma::trial& t) {
  auto lr = t.param<double>("lr");
  auto g = soma::graph::somatize(t.system(), Tokenize{}.named("tokenize") >> Embed{}.named("embed")
                                               >> Score{}.named("score"));
  soma::recorder rec{t.system(), t.store(), {.run = t.run(), .summarising = {"loss"}}};
  double loss = 0;
  for (int step = 0; step < 30; ++step) {
    g.forward("the quick brown fox jumps", {.watching = rec});
    loss = 0.1 + 2 * std::pow(1 - lr, 2 * step);
    rec.tell(soma::fact{"loss", {{"value", loss}}});
    if (loss > 1e3)
      throw std::runtime_error("diverged: loss " + soma::text(loss) + " at step " + std::to_string(step));
    // The work a real step would do; long enough to be caught mid-trial.
    std::this_thread::sleep_for(std::chrono::milliseconds(40));
  }
  rec.flush();
  return {{"loss", loss}, {"steps", std::int64_t{30}}};
}
//! [lr_sweep]

} // namespace

SOMA_TRIAL_FUNCTIONS({"lr_sweep", &lr_sweep})
