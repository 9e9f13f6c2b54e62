#include "soma/trials/claimant.hpp"

#include <algorithm>
#include <cstdio>

#include <caf/actor_system.hpp>
#include <caf/scoped_actor.hpp>
#include <caf/send.hpp>

#include "soma/detail/deterministic.hpp"
#include "soma/machine.hpp"
#include "soma/reporter.hpp"
#include "soma/store/readings.hpp"
#include "soma/store/trials.hpp"

namespace soma {

claimant::claimant(caf::actor_system& sys, store s, std::string study, claimant_options options)
  : sys_(sys), store_(std::move(s)), study_(std::move(study)), options_(std::move(options)),
    sampler_(std::make_shared<machine_sampler>()),
    counted_(std::make_shared<std::atomic<std::uint64_t>>(0)) {
  if (auto ok = check_study_name(study_); !ok)
    throw store_error(describe(ok.error()), store_trouble::invalid);
  if (!options_.log)
    options_.log = [](const std::string& line) { std::fprintf(stderr, "soma: claimant: %s\n", line.c_str()); };
  auto counts = [served = options_.served, counted = counted_, study = study_,
                 fixed = reported{.listens = options_.listens, .serves = options_.serves,
                                  .serves_store = options_.serves_store}] {
    auto said = fixed;
    said.served = served ? served() : 0;
    said.trials = counted->load();
    said.claims = study;
    return said;
  };
  // The first reading is written before any claim, here, so that the
  // claimant is in the fleet (and reclaim can measure it) from its first
  // trial on; the reporter then writes on its own clock.
  auto first = sampler_->read(0);
  auto said = counts();
  first.served = said.served;
  first.claims = said.claims;
  first.listens = said.listens;
  first.serves = said.serves;
  first.serves_store = said.serves_store;
  first.every_us = std::chrono::duration_cast<std::chrono::microseconds>(options_.reporting).count();
  try {
    put_reading(store_, first);
  } catch (const std::exception&) {
    if (options_.wrote)
      options_.wrote(false);
    throw;
  }
  if (options_.wrote)
    options_.wrote(true);
  reporter_ = spawn_reporter(sys_, reporting_to{.opened = store_, .name = store_.path()}, sampler_,
                             reporter_options{.every = std::chrono::duration_cast<std::chrono::microseconds>(
                                                options_.reporting),
                                              .counts = counts,
                                              .log = options_.log,
                                              .first_now = false,
                                              .wrote = options_.wrote,
                                              .dropped = options_.dropped});
}

claimant::~claimant() {
  // The reporter is gone before the last reading: one it took before that
  // (its count read first, its clock after ours) would otherwise land later
  // and say one trial fewer. Its write is bounded (a served store's write
  // ends within 5 s), so the wait is too.
  if (reporter_) {
    caf::scoped_actor self{sys_};
    self->monitor(reporter_);
    caf::anon_send_exit(reporter_, caf::exit_reason::user_shutdown);
    detail::run_until_told(sys_, *self); // under the deterministic scheduler: gone, now
    bool gone = false;
    self->receive([&](caf::down_msg&) { gone = true; },
                  caf::after(std::chrono::seconds(6)) >> [] {});
    if (!gone)
      options_.log("its reporter did not stop within 6 s; its last reading may be older");
  }
  // A last reading, so that what the store says it finished is all it did.
  try {
    auto r = sampler_->read(options_.served ? options_.served() : 0);
    r.trials = *counted_;
    r.claims = study_;
    r.listens = options_.listens;
    r.serves = options_.serves;
    r.serves_store = options_.serves_store;
    r.every_us = std::chrono::duration_cast<std::chrono::microseconds>(options_.reporting).count();
    put_reading(store_, r);
    if (options_.wrote)
      options_.wrote(true);
  } catch (const std::exception& e) {
    if (options_.wrote)
      options_.wrote(false);
    options_.log(std::string{"could not write its last reading: "} + e.what());
  }
}

const std::string& claimant::id() const noexcept { return sampler_->id(); }

std::optional<trial_row> claimant::claim(std::chrono::milliseconds wait) {
  return claim_trial(store_, study_, id(), wait);
}

void claimant::done(const trial_row& t, const values& result) {
  end_trial(store_, study_, t, trial_state::done, result);
  ++*counted_;
}

void claimant::broke(const trial_row& t, const std::string& error) {
  end_trial(store_, study_, t, trial_state::broke, {}, error);
  ++*counted_;
}

void claimant::let_go(const trial_row& t, const std::string& why) {
  end_trial(store_, study_, t, trial_state::waiting, {}, why);
}

std::uint64_t claimant::run(const trial_function& f, claim_options o) {
  std::uint64_t ran = 0;
  std::optional<trial_row> next; // claimed with the last trial's end
  auto room = [&] { return !stopping_ && (!o.at_most || ran < *o.at_most); };
  while (room()) {
    auto t = std::move(next);
    next.reset();
    // Waited for in slices, so that stop() is heard within 100 ms.
    auto until = std::chrono::steady_clock::now() + o.wait;
    while (!t) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        until - std::chrono::steady_clock::now());
      t = claim(std::clamp(left, std::chrono::milliseconds{0}, std::chrono::milliseconds{100}));
      if (stopping_ || left.count() <= 0)
        break;
    }
    if (!t)
      break;
    {
      std::lock_guard hold{in_hand_lock_};
      in_hand_ = t;
    }
    std::optional<values> result;
    std::string error;
    try {
      trial handed{sys_, store_, study_, *t};
      result = f(handed);
    } catch (const std::exception& e) {
      error = e.what();
      if (error.empty())
        error = "its function threw an exception that says nothing";
    } catch (...) {
      error = "its function threw something that is not a std::exception";
    }
    {
      std::lock_guard hold{in_hand_lock_};
      in_hand_.reset();
    }
    auto state = result ? trial_state::done : trial_state::broke;
    try {
      ++ran;
      // The end and the next claim in one commit, while there is room for one.
      if (room())
        next = end_and_claim(store_, study_, *t, state, result.value_or(values{}), error);
      else
        end_trial(store_, study_, *t, state, result.value_or(values{}), error);
      ++*counted_;
    } catch (const trial_refused& e) {
      --ran;
      options_.log(e.what());
      next = e.next;
    }
  }
  // Stopped with a trial claimed and not begun: it goes back at once.
  if (next) {
    try {
      let_go(*next, "its claimant stopped before it began");
    } catch (const std::exception& e) {
      options_.log(std::string{"could not let go of trial "} + std::to_string(next->number) + ": "
                   + e.what());
    }
  }
  return ran;
}

bool claimant::stop_and_let_go(const std::string& why) {
  stop();
  std::optional<trial_row> held;
  {
    std::lock_guard hold{in_hand_lock_};
    held = in_hand_;
  }
  if (!held)
    return false;
  try {
    let_go(*held, why);
    return true;
  } catch (const std::exception& e) {
    options_.log(std::string{"could not let go of trial "} + std::to_string(held->number) + ": "
                 + e.what());
    return false;
  }
}

} // namespace soma
