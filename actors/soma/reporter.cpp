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

// A reporter on its thread: what it knows of the store it writes to, and
// the steps it takes. The store is held here, not in the actor's function
// object, so that a served store is closed on this thread when the
// reporter ends, while its actor system surely runs.
class reporter_loop {
public:
  reporter_loop(reporting_to& into, machine_sampler& sampler, const reporter_options& o)
    : into_(into),
      sampler_(sampler),
      o_(o),
      to_(std::move(into.opened)),
      name_(to_ ? to_->path() : into.name),
      retry_{o.retry},
      reached_(to_.has_value()) {}

  // Writes a reading every `o.every` until an exit message comes.
  void run(caf::blocking_actor* self) {
    auto every = o_.every;
    auto next = clock_type::now();
    if (o_.first_now || !to_)
      attempt(true);
    next += every;
    bool running = true;
    while (running) {
      auto now = clock_type::now();
      if (now >= next) {
        // Ticks passed while a try blocked are not made up in a burst.
        auto due = 1 + (now - next) / every;
        next += due * every;
        if (unreachable_ && now < try_at_) {
          drop(static_cast<std::uint64_t>(due));
          continue;
        }
        if (unreachable_)
          drop(static_cast<std::uint64_t>(due) - 1);
        attempt(true);
        continue;
      }
      if (unreachable_ && now >= try_at_) {
        attempt(false);
        continue;
      }
      auto until = unreachable_ ? std::min(next, try_at_) : next;
      self->receive([&](caf::exit_msg&) { running = false; },
                    caf::after(std::chrono::duration_cast<std::chrono::microseconds>(until - now)
                               + std::chrono::microseconds{1})
                      >> [] {});
    }
    to_.reset();
  }

private:
  void drop(std::uint64_t n) {
    dropped_ += n;
    if (o_.dropped)
      for (std::uint64_t i = 0; i < n; ++i)
        o_.dropped();
  }

  reading read() {
    auto said = o_.counts();
    auto r = sampler_.read(said.served);
    r.trials = said.trials;
    r.claims = said.claims;
    r.every_us = o_.every.count();
    r.listens = said.listens;
    r.serves = said.serves;
    r.serves_store = said.serves_store;
    return r;
  }

  // Not reached: why, said once per try.
  void not_reached(const std::string& why, bool due) {
    if (due)
      drop(1);
    auto wait = retry_.next();
    try_at_ = clock_type::now() + wait;
    unreachable_ = true;
    o_.log("readings: " + why + "; trying again in " + seconds(wait) + " (" + readings(dropped_)
           + " dropped so far)");
  }

  // A write that failed, for another reason than an unreachable store:
  // said once, until one works again.
  void write_failed(const char* what) {
    if (o_.wrote)
      o_.wrote(false);
    if (!failing_)
      o_.log(std::string{"readings: cannot write a reading: "} + what);
    failing_ = true;
  }

  // A write that worked: said when the ones before it did not.
  void written() {
    if (o_.wrote)
      o_.wrote(true);
    if (unreachable_)
      o_.log("readings: "
             + std::string{reached_ ? "reporting to " + name_ + " again" : "reached " + name_}
             + "; " + readings(dropped_) + " dropped while it was unreachable");
    else if (failing_)
      o_.log("readings: writing to " + name_ + " works again");
    reached_ = true;
    unreachable_ = false;
    failing_ = false;
    dropped_ = 0;
    retry_.reset();
  }

  // One try: a fresh reading into the store, opened first if need be.
  // `due`: the reporter's clock asked for it (else a try between ticks).
  void attempt(bool due) {
    reading r;
    try {
      r = read();
    } catch (const std::exception& e) {
      if (o_.wrote)
        o_.wrote(false);
      o_.log(std::string{"readings: cannot take a reading: "} + e.what());
      return;
    }
    try {
      if (!to_) {
        to_ = into_.open();
        name_ = to_->path();
      }
    } catch (const std::exception& e) {
      not_reached(e.what(), due);
      return;
    }
    try {
      put_reading(*to_, r);
    } catch (const store_error& e) {
      if (e.trouble() == store_trouble::unreachable)
        not_reached(e.what(), due);
      else
        write_failed(e.what());
      return;
    } catch (const std::exception& e) {
      write_failed(e.what());
      return;
    }
    written();
  }

  reporting_to& into_;
  machine_sampler& sampler_;
  const reporter_options& o_;
  std::optional<store> to_;
  std::string name_;
  backoff retry_;
  bool reached_;                     // the store was reached once
  bool unreachable_ = false;         // the last try did not reach it
  std::uint64_t dropped_ = 0;        // readings dropped since it was last reached
  clock_type::time_point try_at_ = clock_type::now(); // the next try, while unreachable
  bool failing_ = false;             // the last write failed otherwise
};

} // namespace

caf::actor spawn_reporter(caf::actor_system& sys, reporting_to into,
                          std::shared_ptr<machine_sampler> sampler, reporter_options o) {
  // A blocking actor on a thread of its own: one wake-up per reading (its
  // own timed wait), where a timer message would cost two threads a wake.
  // Its waits end on an exit message; a try at the store does not (bounded).
  return sys.spawn([into = std::move(into), sampler = std::move(sampler),
                    o = std::move(o)](caf::blocking_actor* self) mutable {
    reporter_loop{into, *sampler, o}.run(self);
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
