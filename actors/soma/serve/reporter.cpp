#include "soma/serve/reporter.hpp"

#include <caf/actor_system.hpp>
#include <caf/atom.hpp>
#include <caf/event_based_actor.hpp>

#include "soma/machine.hpp"
#include "soma/store/readings.hpp"

namespace soma::serve {

namespace {

using tick_atom = caf::atom_constant<caf::atom("somatick")>;

std::int64_t unix_us() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
           std::chrono::system_clock::now().time_since_epoch())
    .count();
}

} // namespace

caf::actor spawn_reporter(caf::actor_system& sys, worker_state& worker, store into,
                          std::chrono::microseconds every, log_line log) {
  return sys.spawn<caf::detached>([&worker, into, every, log](caf::event_based_actor* self) mutable
                                  -> caf::behavior {
    auto sampler = std::make_shared<machine_sampler>();
    auto failing = std::make_shared<bool>(false);
    self->send(self, tick_atom::value);
    return {
      [=, &worker](tick_atom) mutable {
        self->delayed_send(self, every, tick_atom::value);
        auto m = sampler->read(worker.served());
        reading r{m.id, m.busy, m.memory, m.cores, m.up_us, m.served, unix_us()};
        try {
          put_reading(into, r);
          if (*failing)
            log("readings: writing to " + into.path() + " works again");
          *failing = false;
        } catch (const std::exception& e) {
          if (!*failing)
            log(std::string{"readings: cannot write a reading: "} + e.what());
          *failing = true;
        }
      },
    };
  });
}

} // namespace soma::serve
