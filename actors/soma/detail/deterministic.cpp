#include "soma/detail/deterministic.hpp"

#include <caf/actor_system_config.hpp>
#include <caf/atom.hpp>
#include <caf/config_value.hpp>
#include <caf/scheduler/test_coordinator.hpp>

namespace soma::detail {

bool deterministic(const caf::actor_system& sys) {
  return caf::get_or(sys.config(), "scheduler.policy", caf::atom("stealing")) == caf::atom("testing");
}

void run_until_told(caf::actor_system& sys, caf::blocking_actor& self, int timers) {
  if (!deterministic(sys))
    return;
  auto& sched = dynamic_cast<caf::scheduler::test_coordinator&>(sys.scheduler());
  sched.run();
  for (int i = 0; i < timers && self.mailbox().empty() && sched.trigger_timeout(); ++i)
    sched.run();
}

} // namespace soma::detail
