#include "claims.hpp"

#include <csignal>
#include <cstdio>

#include "log.hpp"
#include "signals.hpp"
#include "soma/backoff.hpp"
#include "soma/trials/claimant.hpp"
#include "soma/store/trials.hpp"
#include "soma/worker/claiming.hpp"

namespace soma::node_cli {

claims::~claims() {
  if (thread_.joinable())
    thread_.join();
}

bool claims::find_function(const serve::worker_state& worker, const std::optional<store>& opened) {
  // Known now from a directory; from a served store once it is reached.
  if (opt_.claim.empty() || !opened)
    return true;
  try {
    auto study = soma::study(*opened, opt_.claim);
    function_ = &soma::serve::trial_function_for(worker.libraries(), study, opt_.trial);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "soma-node: --claim %s: %s\n", opt_.claim.c_str(), e.what());
    return false;
  }
  return true;
}

void claims::start(context ctx) {
  if (opt_.claim.empty())
    return;
  running_ = true;
  thread_ = std::thread{[this, ctx = std::move(ctx)] { claim(ctx); }};
}

void claims::claim(const context& ctx) {
  // A claimant cannot claim without its store: while a served store
  // cannot be reached (at first, or lost later) it waits, backing off
  // as the reporter does, and claims once it is there.
  soma::backoff retry;
  std::optional<soma::store> from = ctx.opened;
  auto* function = function_;
  std::shared_ptr<soma::claimant> c;
  std::uint64_t n = 0;
  try {
    while (!stop_.requested()) {
      try {
        if (!from)
          from = ctx.reach();
        if (!function && !(function = function_for(ctx.worker, *from)))
          break;
        if (!c)
          c = claimant_for(ctx, *from, *function);
        retry.reset();
        n += run_trials(*c, *function);
        break;
      } catch (const soma::store_error& e) {
        // Not reached, timed out or busy (whatever the reason: what
        // cannot be mended was refused before), or lost: try again.
        if (from && !soma::transient(e.trouble()))
          throw;
        if (!wait_to_retry(retry, e))
          break;
      }
    }
    say_finished(c.get(), n);
  } catch (const std::exception& e) {
    say(std::string{"claims: "} + e.what());
    status_ = 1;
  }
  running_ = false;
  claims_ended();
}

// The trial function, or nullptr once stderr said why there is none (the
// claims then end with status 2); a store that cannot be reached is thrown.
const detail::trial_function_entry* claims::function_for(const serve::worker_state& worker,
                                                         const store& from) {
  try {
    return &soma::serve::trial_function_for(worker.libraries(), soma::study(from, opt_.claim), opt_.trial);
  } catch (const soma::store_error& e) {
    if (soma::transient(e.trouble()))
      throw;
    std::fprintf(stderr, "soma-node: --claim %s: %s\n", opt_.claim.c_str(), e.what());
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "soma-node: --claim %s: %s\n", opt_.claim.c_str(), e.what());
  }
  status_ = 2;
  return nullptr;
}

// The claimant, writing the worker's readings as its reporter would; held
// where stop() finds it.
std::shared_ptr<claimant> claims::claimant_for(const context& ctx, const store& from,
                                               const detail::trial_function_entry& function) {
  auto& worker = ctx.worker;
  auto c = std::make_shared<soma::claimant>(
    ctx.sys, from, opt_.claim,
    soma::claimant_options{.reporting = reporting_every(opt_),
                           .served = [&worker] { return worker.served(); },
                           .log = say,
                           .wrote = [&worker](bool w) { worker.counts.reading(w); },
                           .dropped = [&worker] { ++worker.counts.readings_dropped; },
                           .listens = ctx.listens,
                           .serves = ctx.serves,
                           .serves_store = ctx.serves_store});
  {
    std::lock_guard hold{lock_};
    claiming_ = c;
  }
  if (stop_.requested())
    c->stop();
  say("claiming trials of " + opt_.claim + " from " + from.path()
      + " with the trial function " + function.name + ", as " + c->id());
  return c;
}

// Runs trials until none waits (after --claim-wait) or it is stopped;
// returns how many.
std::uint64_t claims::run_trials(claimant& c, const detail::trial_function_entry& function) {
  auto fn = function.run;
  auto wait = std::chrono::milliseconds(static_cast<std::int64_t>(opt_.claim_wait * 1000));
  return c.run(
    [fn](soma::trial& t) {
      say("claimed trial " + std::to_string(t.number()) + " of " + t.study()
          + " (attempt " + std::to_string(t.attempt()) + ", run " + t.run() + ")");
      return fn(t);
    },
    {.wait = wait});
}

// Says why the store is tried again and waits the backoff's next wait;
// false when a stop was asked meanwhile.
bool claims::wait_to_retry(backoff& retry, const store_error& e) {
  auto wait = retry.next();
  char in[32];
  std::snprintf(in, sizeof in, "%.2f s", static_cast<double>(wait.count()) / 1000);
  say(std::string{"claims: "} + e.what() + "; trying again in " + in);
  return stop_.wait_for(wait);
}

void claims::say_finished(const claimant* c, std::uint64_t n) {
  if (c)
    say("claims: finished " + std::to_string(n) + " trial(s) of " + opt_.claim
        + (c->stopped() || stop_.requested()
             ? "; stopped"
             : std::string{"; none waits"} + (opt_.claim_wait > 0 ? " (after --claim-wait)" : "")));
  else if (status_ == 0)
    say("claims: stopped before the store " + opt_.store + " was reached");
}

void claims::stop(int signal) {
  stop_.request();
  std::lock_guard hold{lock_};
  if (claiming_ && signal != SIGUSR1
      && claiming_->stop_and_let_go("its soma-node stopped (" + stop_reason(signal, 0)
                                    + ") while it ran"))
    say("let go of the trial in hand: the next claim takes it");
}

void claims::join() {
  // Bound by the deadline armed before: a trial function that does not
  // return in time is cut short with everything else.
  if (thread_.joinable())
    thread_.join();
  claiming_.reset();
}

} // namespace soma::node_cli
