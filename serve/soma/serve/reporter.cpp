#include "soma/serve/reporter.hpp"

#include "soma/machine.hpp"
#include "soma/reporter.hpp"

namespace soma::serve {

caf::actor spawn_reporter(caf::actor_system& sys, worker_state& worker, store into,
                          std::chrono::microseconds every, log_line log) {
  return soma::spawn_reporter(sys, std::move(into), every, std::make_shared<machine_sampler>(),
                              [&worker] { return reported{worker.served(), 0, {}}; }, log, true,
                              [&worker](bool written) { worker.counts.reading(written); });
}

} // namespace soma::serve
