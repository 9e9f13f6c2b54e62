#include "soma/reporter.hpp"

#include <cstdio>

#include <caf/actor_system.hpp>
#include <caf/blocking_actor.hpp>
#include <caf/exit_reason.hpp>

#include "soma/machine.hpp"
#include "soma/store/readings.hpp"

namespace soma {

namespace {

using clock_type = std::chrono::steady_clock;

std::string seconds(std::chrono::milliseconds d) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f s", static_cast<double>(d.count()) / 1000);
  return text;
}

std::string readings(std::uint64_t n) {
  return std::to_string(n) + (n == 1 ? " reading" : " readings");
}

} // namespace

caf::actor spawn_reporter(caf::actor_system& sys, reporting_to into,
                          std::shared_ptr<machine_sampler> sampler, reporter_options o) {
  // A blocking actor on a thread of its own: one wake-up per reading (its
  // own timed wait), where a timer message would cost two threads a wake.
  // Its waits end on an exit message; a try at the store does not (bounded).
  return sys.spawn([into = std::move(into), sampler = std::move(sampler),
                    o = std::move(o)](caf::blocking_actor* self) mutable {
    // Held here, not in the actor's function object, so that a served
    // store is closed on this thread when the reporter ends, while its
    // actor system surely runs.
    std::optional<store> to = std::move(into.opened);
    auto name = to ? to->path() : into.name;
    auto every = o.every;
    backoff retry{o.retry};
    bool reached = to.has_value();  // the store was reached once
    bool unreachable = false;       // the last try did not reach it
    std::uint64_t dropped = 0;      // readings dropped since it was last reached
    auto try_at = clock_type::now(); // the next try, while unreachable
    bool failing = false;           // the last write failed otherwise
    auto drop = [&](std::uint64_t n) {
      dropped += n;
      if (o.dropped)
        for (std::uint64_t i = 0; i < n; ++i)
          o.dropped();
    };
    auto read = [&] {
      auto said = o.counts();
      auto r = sampler->read(said.served);
      r.trials = said.trials;
      r.claims = said.claims;
      r.every_us = every.count();
      r.listens = said.listens;
      r.serves = said.serves;
      r.serves_store = said.serves_store;
      return r;
    };
    // Not reached: why, said once per try.
    auto not_reached = [&](const std::string& why, bool due) {
      if (due)
        drop(1);
      auto wait = retry.next();
      try_at = clock_type::now() + wait;
      unreachable = true;
      o.log("readings: " + why + "; trying again in " + seconds(wait) + " (" + readings(dropped)
            + " dropped so far)");
    };
    // One try: a fresh reading into the store, opened first if need be.
    // `due`: the reporter's clock asked for it (else a try between ticks).
    auto attempt = [&](bool due) {
      reading r;
      try {
        r = read();
      } catch (const std::exception& e) {
        if (o.wrote)
          o.wrote(false);
        o.log(std::string{"readings: cannot take a reading: "} + e.what());
        return;
      }
      try {
        if (!to) {
          to = into.open();
          name = to->path();
        }
      } catch (const std::exception& e) {
        not_reached(e.what(), due);
        return;
      }
      try {
        put_reading(*to, r);
      } catch (const store_error& e) {
        if (e.trouble() == store_trouble::unreachable) {
          not_reached(e.what(), due);
          return;
        }
        if (o.wrote)
          o.wrote(false);
        if (!failing)
          o.log(std::string{"readings: cannot write a reading: "} + e.what());
        failing = true;
        return;
      } catch (const std::exception& e) {
        if (o.wrote)
          o.wrote(false);
        if (!failing)
          o.log(std::string{"readings: cannot write a reading: "} + e.what());
        failing = true;
        return;
      }
      if (o.wrote)
        o.wrote(true);
      if (unreachable)
        o.log("readings: " + std::string{reached ? "reporting to " + name + " again" : "reached " + name}
              + "; " + readings(dropped) + " dropped while it was unreachable");
      else if (failing)
        o.log("readings: writing to " + name + " works again");
      reached = true;
      unreachable = false;
      failing = false;
      dropped = 0;
      retry.reset();
    };
    auto next = clock_type::now();
    if (o.first_now || !to)
      attempt(true);
    next += every;
    bool running = true;
    while (running) {
      auto now = clock_type::now();
      if (now >= next) {
        // Ticks passed while a try blocked are not made up in a burst.
        auto due = 1 + (now - next) / every;
        next += due * every;
        if (unreachable && now < try_at) {
          drop(static_cast<std::uint64_t>(due));
          continue;
        }
        if (unreachable)
          drop(static_cast<std::uint64_t>(due) - 1);
        attempt(true);
        continue;
      }
      if (unreachable && now >= try_at) {
        attempt(false);
        continue;
      }
      auto until = unreachable ? std::min(next, try_at) : next;
      self->receive([&](caf::exit_msg&) { running = false; },
                    caf::after(std::chrono::duration_cast<std::chrono::microseconds>(until - now)
                               + std::chrono::microseconds{1})
                      >> [] {});
    }
    to.reset();
  });
}

caf::actor spawn_reporter(caf::actor_system& sys, store into, std::chrono::microseconds every,
                          std::shared_ptr<machine_sampler> sampler,
                          std::function<reported()> counts,
                          std::function<void(const std::string&)> log, bool first_now,
                          std::function<void(bool written)> wrote) {
  auto name = into.path();
  return spawn_reporter(sys, reporting_to{.opened = std::move(into), .name = std::move(name)},
                        std::move(sampler),
                        reporter_options{.every = every,
                                         .counts = std::move(counts),
                                         .log = std::move(log),
                                         .first_now = first_now,
                                         .wrote = std::move(wrote)});
}

} // namespace soma
