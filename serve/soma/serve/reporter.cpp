#include "soma/serve/reporter.hpp"

#include <caf/actor_system.hpp>
#include <caf/blocking_actor.hpp>
#include <caf/exit_reason.hpp>

#include "soma/machine.hpp"
#include "soma/store/readings.hpp"

namespace soma::serve {


caf::actor spawn_reporter(caf::actor_system& sys, worker_state& worker, store into,
                          std::chrono::microseconds every, log_line log) {
  // A blocking actor on a thread of its own: one wake-up per reading (its
  // own timed wait), where a timer message would cost two threads a wake.
  return sys.spawn([&worker, into, every, log](caf::blocking_actor* self) mutable {
    machine_sampler sampler;
    bool failing = false;
    bool running = true;
    auto next = std::chrono::steady_clock::now();
    auto report = [&] {
      try {
        put_reading(into, sampler.read(worker.served()));
        if (failing)
          log("readings: writing to " + into.path() + " works again");
        failing = false;
      } catch (const std::exception& e) {
        if (!failing)
          log(std::string{"readings: cannot write a reading: "} + e.what());
        failing = true;
      }
      next += every;
    };
    report();
    while (running) {
      auto left = next - std::chrono::steady_clock::now();
      if (left <= decltype(left)::zero()) {
        report();
        continue;
      }
      self->receive([&](caf::exit_msg&) { running = false; },
                    caf::after(std::chrono::duration_cast<std::chrono::microseconds>(left)) >> [] {});
    }
  });
}

} // namespace soma::serve
