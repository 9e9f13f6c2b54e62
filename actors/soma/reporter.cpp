#include "soma/reporter.hpp"

#include <algorithm>
#include <cstdio>

#include <caf/actor_clock.hpp>
#include <caf/actor_system.hpp>
#include <caf/atom.hpp>
#include <caf/blocking_actor.hpp>
#include <caf/exit_reason.hpp>
#include <caf/stateful_actor.hpp>

#include "soma/detail/deterministic.hpp"
#include "soma/machine.hpp"
#include "soma/store/readings.hpp"

namespace soma {

namespace {

using time_point = caf::actor_clock::time_point;

std::string seconds(std::chrono::milliseconds d) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f s", static_cast<double>(d.count()) / 1000);
  return text;
}

std::string readings(std::uint64_t n) {
  return std::to_string(n) + (n == 1 ? " reading" : " readings");
}

using tick_atom = caf::atom_constant<caf::atom("tick")>;

// What a reporter knows of the store it writes to, and the steps it takes
// when its clock says (its actor system's: CAF's test clock under the
// deterministic scheduler). The store is held here, in the actor's state,
// so that a served store is closed on the reporter's thread when it ends,
// while its actor system surely runs.
class reporter_core {
public:
  reporter_core(reporting_to into, std::shared_ptr<machine_sampler> sampler, reporter_options o,
                caf::actor_clock& clock)
    : into_(std::move(into)),
      sampler_(std::move(sampler)),
      o_(std::move(o)),
      clock_(clock),
      to_(std::move(into_.opened)),
      name_(to_ ? to_->path() : into_.name),
      retry_{o_.retry},
      reached_(to_.has_value()),
      next_(clock_.now() + o_.every),
      try_at_(clock_.now()) {}

  // The first reading, now (unless its caller wrote one).
  void start() {
    if (o_.first_now || !to_)
      attempt(true);
  }

  // Everything due by now: the readings the clock asked for (ticks passed
  // while a try blocked are not made up in a burst), and a try while the
  // store is not reached.
  void wake() {
    for (;;) {
      auto now = clock_.now();
      if (now >= next_) {
        auto due = 1 + (now - next_) / o_.every;
        next_ += due * o_.every;
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
      return;
    }
  }

  // How long until the next wake.
  [[nodiscard]] std::chrono::microseconds wait() const {
    auto until = unreachable_ ? std::min(next_, try_at_) : next_;
    auto left = until - clock_.now();
    return std::max(std::chrono::microseconds{1},
                    std::chrono::duration_cast<std::chrono::microseconds>(left) + std::chrono::microseconds{1});
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
    auto r = sampler_->read(said.served);
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
    try_at_ = clock_.now() + wait;
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

  reporting_to into_;
  std::shared_ptr<machine_sampler> sampler_;
  reporter_options o_;
  caf::actor_clock& clock_;
  std::optional<store> to_;
  std::string name_;
  backoff retry_;
  bool reached_;                // the store was reached once
  bool unreachable_ = false;    // the last try did not reach it
  std::uint64_t dropped_ = 0;   // readings dropped since it was last reached
  time_point next_;             // the next reading the clock asks for
  time_point try_at_;           // the next try, while unreachable
  bool failing_ = false;        // the last write failed otherwise
};

struct reporter_state {
  std::optional<reporter_core> core;
  static inline const char* name = "soma.reporter";
};

using reporter_actor = caf::stateful_actor<reporter_state>;

// Under the deterministic test scheduler: the same steps, woken by a timer
// message on the test's clock.
caf::behavior reporting(reporter_actor* self, reporting_to into, std::shared_ptr<machine_sampler> sampler,
                        reporter_options o) {
  auto& core = self->state.core.emplace(std::move(into), std::move(sampler), std::move(o), self->clock());
  core.start();
  self->delayed_send(self, core.wait(), tick_atom::value);
  return {
    [self](tick_atom) {
      auto& core = *self->state.core;
      core.wake();
      self->delayed_send(self, core.wait(), tick_atom::value);
    },
  };
}

} // namespace

caf::actor spawn_reporter(caf::actor_system& sys, reporting_to into,
                          std::shared_ptr<machine_sampler> sampler, reporter_options o) {
  if (detail::deterministic(sys))
    return sys.spawn(reporting, std::move(into), std::move(sampler), std::move(o));
  // A blocking actor on a thread of its own: one wake-up per reading (its
  // own timed wait), where a timer message would cost two threads a wake
  // (benchmarks/README.md, "fleet"). Its waits end on an exit message; a try
  // at the store does not (bounded). The store goes with the core, on this
  // thread, while the actor system surely runs.
  return sys.spawn([into = std::move(into), sampler = std::move(sampler),
                    o = std::move(o)](caf::blocking_actor* self) mutable {
    reporter_core core{std::move(into), std::move(sampler), std::move(o), self->clock()};
    core.start();
    for (bool running = true; running;) {
      core.wake();
      self->receive([&](caf::exit_msg&) { running = false; }, caf::after(core.wait()) >> [] {});
    }
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
