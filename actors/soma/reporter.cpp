#include "soma/reporter.hpp"

#include <caf/actor_system.hpp>
#include <caf/blocking_actor.hpp>
#include <caf/exit_reason.hpp>

#include "soma/machine.hpp"
#include "soma/store/readings.hpp"

namespace soma {

caf::actor spawn_reporter(caf::actor_system& sys, store into, std::chrono::microseconds every,
                          std::shared_ptr<machine_sampler> sampler,
                          std::function<reported()> counts,
                          std::function<void(const std::string&)> log, bool first_now,
                          std::function<void(bool written)> wrote) {
  // A blocking actor on a thread of its own: one wake-up per reading (its
  // own timed wait), where a timer message would cost two threads a wake.
  return sys.spawn([into, every, sampler, counts, log, first_now, wrote](caf::blocking_actor* self) mutable {
    bool failing = false;
    bool running = true;
    auto next = std::chrono::steady_clock::now();
    auto report = [&] {
      try {
        auto said = counts();
        auto r = sampler->read(said.served);
        r.trials = said.trials;
        r.claims = said.claims;
        r.every_us = every.count();
        r.listens = said.listens;
        r.serves = said.serves;
        r.serves_store = said.serves_store;
        put_reading(into, r);
        if (wrote)
          wrote(true);
        if (failing)
          log("readings: writing to " + into.path() + " works again");
        failing = false;
      } catch (const std::exception& e) {
        if (wrote)
          wrote(false);
        if (!failing)
          log(std::string{"readings: cannot write a reading: "} + e.what());
        failing = true;
      }
      next += every;
    };
    if (first_now)
      report();
    else
      next += every;
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

} // namespace soma
