#pragma once

// Actor logic under CAF's deterministic test scheduler: every message runs
// on the test's thread, one at a time, when the test says, and time is the
// test clock's, moved on by the test (caf/test/dsl.hpp's
// test_coordinator_fixture, with Boost.Test's checks).

#include <string>

#include <caf/abstract_actor.hpp>
#include <caf/actor_system.hpp>
#include <caf/atom.hpp>
#include <caf/local_actor.hpp>
#include <caf/scheduler/test_coordinator.hpp>
#include <caf/timestamp.hpp>

#include "soma/system_config.hpp"

namespace soma_test {

/// soma's configuration, with CAF's testing scheduler and network backend.
struct deterministic_config : soma::system_config {
  deterministic_config() {
    set("scheduler.policy", caf::atom("testing"));
    set("middleman.network-backend", caf::atom("testing"));
    set("middleman.manual-multiplexing", true);
    set("middleman.heartbeat-interval", caf::timespan{0});
  }
};

struct deterministic_fixture {
  deterministic_config cfg;
  caf::actor_system sys{cfg};
  caf::scheduler::test_coordinator& sched =
    dynamic_cast<caf::scheduler::test_coordinator&>(sys.scheduler());

  deterministic_fixture() { sched.run(); }

  /// What is left runs (the exits of actors whose handles went), so that
  /// the actor system, going next, finds every actor ended.
  ~deterministic_fixture() { sched.run(); }

  /// The name of the actor whose message runs next ("" when none waits):
  /// soma's actors name themselves ("soma.node", "soma.recorder", ...).
  std::string next() {
    if (!sched.has_job())
      return "";
    auto* a = dynamic_cast<caf::local_actor*>(sched.jobs.front());
    return a ? a->name() : "?";
  }

  /// Runs the next message, checking first that it is `whom`'s; false when
  /// it is not (and runs nothing then).
  bool run_next(const std::string& whom) {
    if (next() != whom)
      return false;
    sched.run_once();
    return true;
  }
};

} // namespace soma_test
