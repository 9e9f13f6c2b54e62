#include "run.hpp"

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <caf/actor_system.hpp>
#include <caf/openssl/manager.hpp>
#include <caf/send.hpp>

#include "claims.hpp"
#include "code_directory.hpp"
#include "lifeline.hpp"
#include "log.hpp"
#include "metrics.hpp"
#include "reporting.hpp"
#include "serve_store.hpp"
#include "signals.hpp"
#include "slices.hpp"
#include "soma/system_config.hpp"
#include "soma/worker/server.hpp"
#include "soma/worker/stop_deadline.hpp"

namespace soma::node_cli {

namespace {

// What is made before the actor system, and outlives it.
struct made_first {
  std::optional<store> served_store;   // --serve-store
  std::optional<store> readings_store; // --store, a directory: made durable once the system is gone
  std::vector<std::shared_ptr<const detail::node_library>> libraries; // --nodes, until the worker takes them
  std::string code_dir;                // shipped libraries (code_directory.hpp)
};

// How serving ended: the exit status; whether a signal stopped it (the log
// then says "stopped" last); whether to make the stores durable (not when
// it ended before it could publish its front).
struct ending {
  int status = exit_ok;
  bool by_signal = false;
  bool wind_up = true;
};

// How soon a silent peer is given up on, and mutual TLS.
void configure(system_config& cfg, const options& opt, bool tls) {
  cfg.detect_within(std::chrono::milliseconds(static_cast<std::int64_t>(opt.silence * 1000)));
  if (tls) {
    cfg.load<caf::openssl::manager>();
    cfg.openssl_certificate = opt.tls_cert;
    cfg.openssl_key = opt.tls_key;
    cfg.openssl_cafile = opt.tls_ca;
  }
}

// Makes what was written durable: the store it serves and the one its
// readings go to; a sync that fails is said in the log.
void make_durable(made_first& m) {
  for (auto* s : {&m.served_store, &m.readings_store})
    if (*s) {
      try {
        (*s)->sync();
      } catch (const std::exception& e) {
        say(std::string{"could not sync "} + (*s)->path() + ": " + e.what());
      }
    }
}

// The stop outlived `bound`: says what is abandoned, makes the stores
// durable, removes the code directory; the status the process ends with.
// On the stop deadline's thread.
int cut_short(serve::worker_state& worker, const claims& claiming, made_first& m,
              std::chrono::milliseconds bound) {
  auto running = worker.running_slices();
  auto open = worker.open_sessions();
  bool still_claiming = claiming.running();
  make_durable(m);
  remove_code_directory(m.code_dir);
  if (running == 0 && open == 0 && !still_claiming) {
    // Everything was answered and closed; only CAF's own teardown
    // (its network layer, a detached thread) had not returned.
    say("stopped (CAF's shutdown had not returned within " + std::to_string(bound.count())
        + " ms, with nothing in flight: left without it)");
    return exit_ok;
  }
  say("stop cut short after " + std::to_string(bound.count()) + " ms: "
      + std::to_string(running) + " slice(s) still running and " + std::to_string(open)
      + " session(s) still open were abandoned; their clients see the connection close"
      + (still_claiming ? "; the trial function still running was abandoned (its trial was let go "
                          "if it was in hand)"
                        : ""));
  say("stopped (cut short)");
  return exit_cut_short;
}

// The line that says the worker is up: where it listens, and what it
// serves and reports.
void say_listening(const options& opt, const listening& at, const std::string& listens,
                   const std::vector<std::string>& serving, const made_first& m) {
  std::string served;
  for (auto& type : serving)
    served += " " + type;
  say("listening on " + listens + (at.tls ? " (mutual TLS)" : "")
      + (opt.accept_code ? ", accepting shipped code" : "")
      + (served.empty() ? "" : ", serving" + served)
      + (m.served_store ? ", serving the store " + m.served_store->path() : "")
      + (!opt.store.empty() ? ", reporting to "
                                + (m.readings_store ? m.readings_store->path() : opt.store) + " every "
                                + std::to_string(opt.reporting.value_or(0.5)).substr(0, 5) + " s"
                            : ""));
}

// Everything that lives with the actor system, in the order it must be
// made and the reverse of the order it must go: from the worker's state to
// the front published, until a signal says stop.
ending serve_until_stopped(const options& opt, const listening& at, system_config& cfg,
                           made_first& m, const stop_signals& signals) {
  // The worker's state outlives the actor system, whose destructor waits
  // for the sessions and the reporter that use it.
  serve::worker_state worker{std::move(m.libraries), opt.accept_code, m.code_dir};
  worker.served_store = m.served_store;
  worker.store_sessions = opt.store_sessions;
  // --claim. Made before the deadline, which asks it whether a trial
  // function still runs, so that it is there for as long as the deadline is.
  claims claiming{opt};
  // Armed when a signal says stop. Made after the worker and before the
  // actor system, so it is destroyed (disarmed) once the system's
  // destructor, which is what may not return in time, has returned.
  std::optional<serve::stop_deadline> deadline;
  // Bound before the actor system is made, so that a port taken costs no
  // teardown; served once the worker listens, stopped with it, and let go
  // (its requests in hand) inside the deadline.
  std::optional<metrics_endpoint> metrics;
  if (!opt.metrics.empty() && !open_metrics(opt, worker, metrics))
    return {.status = exit_cannot, .wind_up = false};
  caf::actor_system sys{cfg};
  std::function<store()> reach_store;
  if (!reach_readings_store(sys, opt, m.readings_store, reach_store))
    return {.status = exit_usage, .wind_up = false};
  // A served store goes before the actor system it was opened through.
  struct closing {
    std::optional<store>& s;
    ~closing() {
      if (s && !s->on_this_host())
        s.reset();
    }
  } close_served{m.readings_store};
  if (!claiming.find_function(worker, m.readings_store))
    return {.status = exit_usage, .wind_up = false};
  auto front = serve::spawn_front(sys, worker, say);
  auto port = publish_front(sys, front, opt, at);
  if (!port)
    return {.status = exit_cannot};
  // Where a client reaches it, as its readings say it (and standing shows).
  auto listens = at.where.host + ":" + std::to_string(*port);
  auto reporter = start_reporting(sys, worker, opt, m.readings_store, reach_store, listens);
  auto serving = served_types(worker);
  say_listening(opt, at, listens, serving, m);
  if (metrics) {
    metrics->start();
    say("metrics at " + metrics->url());
  }
  claiming.start({sys, worker, m.readings_store, reach_store, listens, serving,
                  m.served_store ? m.served_store->path() : ""});
  int signal = signals.wait();
  say("stopping (" + stop_reason(signal, claiming.status()) + ")");
  claiming.stop(signal);
  int status = claiming.status();
  auto bound = std::chrono::milliseconds(static_cast<std::int64_t>(opt.stop_within * 1000));
  deadline.emplace(bound, [&worker, &claiming, &m, bound] { return cut_short(worker, claiming, m, bound); });
  caf::anon_send_exit(front, caf::exit_reason::user_shutdown);
  if (reporter)
    caf::anon_send_exit(reporter, caf::exit_reason::user_shutdown);
  if (metrics)
    metrics->stop();
  claiming.join();
  return {.status = status, .by_signal = true};
}

} // namespace

int run(const options& opt) {
  auto at = check_options(opt);
  if (!at)
    return exit_usage;
  made_first m;
  if (!open_served_store(opt, m.served_store))
    return exit_usage;
  auto libraries = load_libraries(opt);
  if (!libraries)
    return exit_usage;
  m.libraries = std::move(*libraries);
  // Taken by a wait in serve_until_stopped(): every thread CAF starts
  // inherits the mask.
  stop_signals signals;
  if (!watch_lifeline())
    return exit_usage;
  if (!check_bounds(opt))
    return exit_usage;
  system_config cfg;
  configure(cfg, opt, at->tls);
  auto code_dir = make_code_directory();
  if (!code_dir)
    return exit_cannot;
  m.code_dir = *code_dir;
  auto end = serve_until_stopped(opt, *at, cfg, m, signals);
  if (end.wind_up)
    make_durable(m);
  remove_code_directory(m.code_dir);
  if (end.by_signal)
    say("stopped");
  return end.status;
}

} // namespace soma::node_cli
