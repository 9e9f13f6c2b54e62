#include "soma/worker/worker_reporter.hpp"

#include "soma/detail/libraries.hpp"

#include "soma/machine.hpp"

namespace soma::serve {

caf::actor spawn_reporter(caf::actor_system& sys, worker_state& worker, reporting_to into,
                          std::chrono::microseconds every, std::string listens, log_line log) {
  // What it serves does not change while it runs: said once, in every reading.
  reported fixed{.listens = std::move(listens)};
  for (auto& library : worker.libraries())
    for (auto& entry : *library->entries)
      fixed.serves.push_back(entry.type);
  if (worker.served_store)
    fixed.serves_store = worker.served_store->path();
  return soma::spawn_reporter(
    sys, std::move(into), std::make_shared<machine_sampler>(),
    reporter_options{.every = every,
                     .counts = [&worker, fixed] {
                       auto said = fixed;
                       said.served = worker.served();
                       return said;
                     },
                     .log = std::move(log),
                     .wrote = [&worker](bool written) { worker.counts.reading(written); },
                     .dropped = [&worker] { ++worker.counts.readings_dropped; }});
}

} // namespace soma::serve
