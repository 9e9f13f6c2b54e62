// soma-node: the worker process a user launches on a cluster host. It
// publishes one actor over CAF's middleman and runs the slices of graphs that
// clients send it (docs/remote.md).

#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <atomic>
#include <cstdlib>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>
#include <caf/actor_system.hpp>
#include <caf/io/middleman.hpp>
#include <caf/io/publish.hpp>
#include <caf/openssl/manager.hpp>
#include <caf/openssl/publish.hpp>
#include <caf/send.hpp>

#include "soma/backoff.hpp"
#include "soma/claimant.hpp"
#include "soma/error.hpp"
#include "soma/remote/address.hpp"
#include "soma/remote/served_store.hpp"
#include "soma/store/backend.hpp"
#include "soma/store/trials.hpp"
#include "soma/worker/catalog.hpp"
#include "soma/worker/claiming.hpp"
#include "soma/worker/reporter.hpp"
#include "soma/worker/server.hpp"
#include "soma/worker/stop_deadline.hpp"
#include "soma/worker/stop_request.hpp"
#include "soma/system_config.hpp"
#include "soma/version.hpp"
#include "metrics.hpp"

namespace {

// One line of the log: when (UTC, ISO 8601, milliseconds), who, what.
void say(const std::string& line) {
  auto now = std::chrono::system_clock::now();
  auto t = std::chrono::system_clock::to_time_t(now);
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm utc{};
  gmtime_r(&t, &utc);
  char when[32];
  std::strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%S", &utc);
  std::fprintf(stderr, "%s.%03dZ soma-node[%d]: %s\n", when, static_cast<int>(ms),
               static_cast<int>(getpid()), line.c_str());
  std::fflush(stderr);
}

struct options {
  std::string listen = "127.0.0.1:0";
  std::vector<std::string> nodes;
  bool accept_code = false;
  std::string tls_cert, tls_key, tls_ca;
  std::string store;
  std::optional<double> reporting;
  std::string serve_store;
  double stop_within = 1.5;
  double silence = 3.0;
  std::string claim;
  std::string trial;
  double claim_wait = 0;
  std::string metrics;
};

// Exit statuses (docs/remote.md): 0 a clean stop, 1 cannot listen, 2 bad
// usage, 3 a stop cut short at its bound.
constexpr int cut_short_status = 3;

int serve(const options& opt) {
  soma::address where, metrics_at;
  try {
    where = soma::parse_address(opt.listen, "--listen");
    if (!opt.metrics.empty())
      metrics_at = soma::parse_address(opt.metrics, "--metrics");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "soma-node: %s\n", e.what());
    return 2;
  }
  int tls_given = !opt.tls_cert.empty() + !opt.tls_key.empty() + !opt.tls_ca.empty();
  if (tls_given != 0 && tls_given != 3) {
    std::fprintf(stderr, "soma-node: mutual TLS needs all three of --tls-cert, --tls-key and "
                         "--tls-ca (the worker's certificate, its key, and the CA both sides trust)\n");
    return 2;
  }
  bool tls = tls_given == 3;
  if (!tls && !soma::is_loopback(where.host)) {
    std::fprintf(stderr,
                 "soma-node: refusing to listen on %s without mutual TLS: any peer that connects "
                 "could run code here. Give --tls-cert, --tls-key and --tls-ca (a CA both sides "
                 "trust), or listen on 127.0.0.1\n",
                 where.host.c_str());
    return 2;
  }
  for (auto* f : {&opt.tls_cert, &opt.tls_key, &opt.tls_ca})
    if (tls && !std::filesystem::is_regular_file(*f)) {
      std::fprintf(stderr, "soma-node: cannot read the TLS file '%s'\n", f->c_str());
      return 2;
    }
  // Said here rather than by http_server: soma-node's TLS takes all three
  // files, where its HTTPS uses two and a scraper none.
  if (!opt.metrics.empty() && !tls && !soma::is_loopback(metrics_at.host)) {
    std::fprintf(stderr,
                 "soma-node: refusing to serve --metrics on %s without TLS: anyone who can reach "
                 "it would read this worker's metrics. Give --tls-cert, --tls-key and --tls-ca "
                 "(its HTTPS uses the certificate and key; a scraper needs no client "
                 "certificate), or serve them on 127.0.0.1\n",
                 opt.metrics.c_str());
    return 2;
  }
  if (opt.reporting && opt.store.empty()) {
    std::fprintf(stderr, "soma-node: --reporting needs --store: readings are written into a store\n");
    return 2;
  }
  if (opt.reporting && !(*opt.reporting > 0 && *opt.reporting <= 3600)) {
    std::fprintf(stderr, "soma-node: --reporting takes seconds between readings, more than 0 and "
                         "at most 3600, not %g\n", *opt.reporting);
    return 2;
  }
  if (!opt.claim.empty() && opt.store.empty()) {
    std::fprintf(stderr, "soma-node: --claim needs --store: trials are claimed from a store (a "
                         "directory, or soma://HOST:PORT)\n");
    return 2;
  }
  if (!opt.claim.empty()) {
    if (auto ok = soma::check_study_name(opt.claim); !ok) {
      std::fprintf(stderr, "soma-node: --claim: %s\n", soma::describe(ok.error()).c_str());
      return 2;
    }
  }
  if (!opt.trial.empty() && opt.claim.empty()) {
    std::fprintf(stderr, "soma-node: --trial names the trial function of --claim STUDY; give --claim\n");
    return 2;
  }
  if (!(opt.claim_wait >= 0 && opt.claim_wait <= 86400)) {
    std::fprintf(stderr, "soma-node: --claim-wait takes seconds, 0 to 86400, not %g\n", opt.claim_wait);
    return 2;
  }
  // A served store that cannot be reached yet is tried again later; what
  // no later try can mend is refused now.
  bool served_readings = opt.store.starts_with("soma://");
  if (served_readings) {
    try {
      (void)soma::parse_address(std::string_view{opt.store}.substr(7), "--store");
    } catch (const std::exception& e) {
      std::fprintf(stderr, "soma-node: %s (a served store is soma://HOST:PORT)\n", e.what());
      return 2;
    }
    // With none of its own TLS files, a served store would be reached with
    // $SOMA_TLS_*, which this worker's actor system was not made with.
    if (tls_given == 0)
      for (auto* name : {"SOMA_TLS_CERT", "SOMA_TLS_KEY", "SOMA_TLS_CA"})
        if (auto* v = std::getenv(name); v && *v) {
          std::fprintf(stderr, "soma-node: --store %s: $%s is set, but soma-node reaches a served "
                               "store with its own TLS files: give --tls-cert, --tls-key and "
                               "--tls-ca (or unset $SOMA_TLS_CERT, $SOMA_TLS_KEY, $SOMA_TLS_CA)\n",
                       opt.store.c_str(), name);
          return 2;
        }
  }
  std::optional<soma::store> served_store;
  if (!opt.serve_store.empty()) {
    // A new store is made where none is, and said so: a typo must not pass
    // for the store an operator meant.
    std::error_code ec;
    if (!std::filesystem::exists(opt.serve_store, ec))
      say("--serve-store: there is no store in '" + opt.serve_store
          + "' yet: serving a new, empty one there");
    try {
      served_store.emplace(opt.serve_store);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "soma-node: --serve-store: %s\n", e.what());
      return 2;
    }
  }
  // A served store (soma://) is reached with this worker's own TLS files,
  // through its own actor system, by whoever writes it (the reporter, the
  // claims), which try again while it cannot be reached. A directory is
  // opened once the actor system is made.
  std::optional<soma::store> readings_store;
  soma::store_options readings_options;
  // A reading lost to a machine crash is replaced on the next tick; a claim
  // or a result is not.
  readings_options.expendable = opt.claim.empty();
  readings_options.tls_cert = opt.tls_cert;
  readings_options.tls_key = opt.tls_key;
  readings_options.tls_ca = opt.tls_ca;
  std::vector<std::shared_ptr<const soma::detail::node_library>> libraries;
  for (auto& path : opt.nodes) {
    try {
      auto lib = soma::detail::load_node_library(path);
      // The same library given twice (or by two paths) is served once.
      bool again = false;
      for (auto& had : libraries)
        again = again || had->definition == lib->definition;
      if (!again)
        libraries.push_back(std::move(lib));
    } catch (const std::exception& e) {
      std::fprintf(stderr, "soma-node: --nodes: %s\n", e.what());
      return 2;
    }
  }

  // Signals are taken by sigwait below: every thread CAF starts inherits the mask.
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGTERM);
  sigaddset(&stop, SIGINT);
  sigaddset(&stop, SIGUSR1); // --claim: no trial waits any more
  pthread_sigmask(SIG_BLOCK, &stop, nullptr);

  if (!(opt.stop_within > 0 && opt.stop_within <= 60)) {
    std::fprintf(stderr, "soma-node: --stop-within takes seconds, more than 0 and at most 60, "
                         "not %g\n", opt.stop_within);
    return 2;
  }
  if (!(opt.silence >= 0.2 && opt.silence <= 3600)) {
    std::fprintf(stderr, "soma-node: --connection-timeout takes seconds, at least 0.2 and at most "
                         "3600, not %g\n", opt.silence);
    return 2;
  }

  soma::system_config cfg;
  cfg.detect_within(std::chrono::milliseconds(static_cast<std::int64_t>(opt.silence * 1000)));
  if (tls) {
    cfg.load<caf::openssl::manager>();
    cfg.openssl_certificate = opt.tls_cert;
    cfg.openssl_key = opt.tls_key;
    cfg.openssl_cafile = opt.tls_ca;
  }
  // Shipped libraries go into a directory only this user can enter, made
  // fresh: nobody else can put or swap a file there before it is loaded.
  auto code_template = std::filesystem::temp_directory_path().string() + "/soma-node-XXXXXX";
  std::vector<char> code_path(code_template.begin(), code_template.end());
  code_path.push_back('\0');
  if (!::mkdtemp(code_path.data())) {
    std::fprintf(stderr, "soma-node: cannot make a private directory in %s\n",
                 std::filesystem::temp_directory_path().c_str());
    return 1;
  }
  std::string code_dir = code_path.data();
  int status = 0;
  bool stopped_by_signal = false;
  auto make_durable = [&] {
    for (auto* s : {&served_store, &readings_store})
      if (*s) {
        try {
          (*s)->sync();
        } catch (const std::exception& e) {
          say(std::string{"could not sync "} + (*s)->path() + ": " + e.what());
        }
      }
  };
  {
    // The worker's state outlives the actor system, whose destructor waits
    // for the sessions and the reporter that use it.
    soma::serve::worker_state worker{std::move(libraries), opt.accept_code, code_dir};
    worker.served_store = served_store;
    // Armed when a signal says stop. Made after the worker and before the
    // actor system, so it is destroyed (disarmed) once the system's
    // destructor, which is what may not return in time, has returned.
    std::optional<soma::serve::stop_deadline> deadline;
    // Bound before the actor system is made, so that a port taken costs no
    // teardown; served once the worker listens, stopped with it, and let go
    // (its requests in hand) inside the deadline.
    std::optional<soma::node_cli::metrics_endpoint> metrics;
    if (!opt.metrics.empty()) {
      try {
        metrics.emplace(worker.counts, worker.sampler().id(),
                        soma::web::http_options{.listen = opt.metrics,
                                                .tls_cert = opt.tls_cert,
                                                .tls_key = opt.tls_key,
                                                .threads = 4,
                                                .live_cap = 1, // none is used: below threads
                                                .queued = 64,
                                                .who = "soma-node --metrics"});
      } catch (const soma::web::http_error& e) {
        // What is left is not usage (checked above): the port, or the
        // certificate, which CAF's listening would fail on too.
        std::fprintf(stderr, "soma-node: --metrics: %s\n", e.what());
        std::error_code ignored;
        std::filesystem::remove_all(code_dir, ignored);
        return 1;
      }
    }
    std::atomic<bool> claims_running{false}; // --claim: a trial function may still run
    caf::actor_system sys{cfg};
    std::function<soma::store()> reach_store;
    if (served_readings) {
      reach_store = [&sys, where = opt.store, readings_options] {
        auto opened = soma::open_store(sys, where, readings_options);
        if (!opened)
          throw soma::store_error(soma::describe(opened.error()), soma::store_trouble::unreachable);
        return std::move(*opened);
      };
    } else if (!opt.store.empty()) {
      auto opened = soma::open_store(sys, opt.store, readings_options);
      if (!opened) {
        std::fprintf(stderr, "soma-node: --store: %s\n", soma::describe(opened.error()).c_str());
        std::error_code ignored;
        std::filesystem::remove_all(code_dir, ignored);
        return 2;
      }
      readings_store = std::move(*opened);
    }
    // Known now from a directory; from a served store once it is reached.
    const soma::detail::trial_function_entry* trial_function = nullptr;
    if (!opt.claim.empty() && readings_store) {
      try {
        auto study = soma::study(*readings_store, opt.claim);
        trial_function = &soma::serve::trial_function_for(worker.libraries(), study, opt.trial);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "soma-node: --claim %s: %s\n", opt.claim.c_str(), e.what());
        if (readings_store && !readings_store->backend().local())
          readings_store.reset();
        std::error_code ignored;
        std::filesystem::remove_all(code_dir, ignored);
        return 2;
      }
    }
    // A served store goes before the actor system it was opened through.
    struct closing {
      std::optional<soma::store>& s;
      ~closing() {
        if (s && !s->backend().local())
          s.reset();
      }
    } close_served{readings_store};
    auto front = soma::serve::spawn_front(sys, worker, say);
    caf::actor reporter;
    auto port = tls ? caf::openssl::publish(front, where.port, where.host.c_str(), true)
                    : sys.middleman().publish(front, where.port, where.host.c_str(), true);
    if (!port) {
      std::fprintf(stderr, "soma-node: cannot listen on %s: %s\n", opt.listen.c_str(),
                   sys.render(port.error()).c_str());
      caf::anon_send_exit(front, caf::exit_reason::user_shutdown);
      status = 1;
    } else {
      std::printf("%u\n", static_cast<unsigned>(*port));
      std::fflush(stdout);
      // Where a client reaches it, as its readings say it (and standing shows).
      auto listens = where.host + ":" + std::to_string(*port);
      // A claimant reports for itself (with its trials), and for the slices
      // this worker serves; its first reading comes once it listens.
      if (!opt.store.empty() && opt.claim.empty()) {
        auto every = std::chrono::microseconds(
          static_cast<std::int64_t>(opt.reporting.value_or(0.5) * 1e6));
        reporter = soma::serve::spawn_reporter(
          sys, worker, {.opened = readings_store, .open = reach_store, .name = opt.store}, every,
          listens, say);
      }
      std::string served;
      std::vector<std::string> serving;
      for (auto& lib : worker.libraries())
        for (auto& e : *lib->entries) {
          served += " " + e.type;
          serving.push_back(e.type);
        }
      say("listening on " + listens + (tls ? " (mutual TLS)" : "")
          + (opt.accept_code ? ", accepting shipped code" : "")
          + (served.empty() ? "" : ", serving" + served)
          + (served_store ? ", serving the store " + served_store->path() : "")
          + (!opt.store.empty() ? ", reporting to "
                                    + (readings_store ? readings_store->path() : opt.store) + " every "
                                    + std::to_string(opt.reporting.value_or(0.5)).substr(0, 5) + " s"
                                : ""));
      if (metrics) {
        metrics->start();
        say("metrics at " + metrics->url());
      }
      std::shared_ptr<soma::claimant> claiming;
      std::mutex claiming_lock;
      std::atomic<int> claim_status{0};
      soma::serve::stop_request claims_stop; // asked on a signal: ends a wait for the store
      std::thread claims;
      if (!opt.claim.empty()) {
        claims_running = true;
        auto every = std::chrono::microseconds(
          static_cast<std::int64_t>(opt.reporting.value_or(0.5) * 1e6));
        claims = std::thread{[&, every] {
          // A claimant cannot claim without its store: while a served store
          // cannot be reached (at first, or lost later) it waits, backing off
          // as the reporter does, and claims once it is there.
          soma::backoff retry;
          std::optional<soma::store> from = readings_store;
          auto* function = trial_function;
          std::shared_ptr<soma::claimant> c;
          std::uint64_t n = 0;
          try {
            while (!claims_stop.requested()) {
              try {
                if (!from)
                  from = reach_store();
                if (!function) {
                  try {
                    function = &soma::serve::trial_function_for(
                      worker.libraries(), soma::study(*from, opt.claim), opt.trial);
                  } catch (const soma::store_error& e) {
                    if (e.trouble() == soma::store_trouble::unreachable)
                      throw;
                    std::fprintf(stderr, "soma-node: --claim %s: %s\n", opt.claim.c_str(), e.what());
                    claim_status = 2;
                    break;
                  } catch (const std::invalid_argument& e) {
                    std::fprintf(stderr, "soma-node: --claim %s: %s\n", opt.claim.c_str(), e.what());
                    claim_status = 2;
                    break;
                  }
                }
                if (!c) {
                  c = std::make_shared<soma::claimant>(
                    sys, *from, opt.claim,
                    soma::claimant_options{.reporting = every,
                                           .served = [&worker] { return worker.served(); },
                                           .log = say,
                                           .wrote = [&worker](bool w) { worker.counts.reading(w); },
                                           .dropped = [&worker] { ++worker.counts.readings_dropped; },
                                           .listens = listens,
                                           .serves = serving,
                                           .serves_store = served_store ? served_store->path() : ""});
                  {
                    std::lock_guard hold{claiming_lock};
                    claiming = c;
                  }
                  if (claims_stop.requested())
                    c->stop();
                  say("claiming trials of " + opt.claim + " from " + from->path()
                      + " with the trial function " + function->name + ", as " + c->id());
                }
                retry.reset();
                auto fn = function->run;
                auto wait = std::chrono::milliseconds(static_cast<std::int64_t>(opt.claim_wait * 1000));
                n += c->run(
                  [fn](soma::trial& t) {
                    say("claimed trial " + std::to_string(t.number()) + " of " + t.study()
                        + " (attempt " + std::to_string(t.attempt()) + ", run " + t.run() + ")");
                    return fn(t);
                  },
                  {.wait = wait});
                break;
              } catch (const soma::store_error& e) {
                // Not reached (whatever the reason: what cannot be mended
                // was refused before), or lost: try again.
                if (from && e.trouble() != soma::store_trouble::unreachable)
                  throw;
                auto wait = retry.next();
                char in[32];
                std::snprintf(in, sizeof in, "%.2f s", static_cast<double>(wait.count()) / 1000);
                say(std::string{"claims: "} + e.what() + "; trying again in " + in);
                if (!claims_stop.wait_for(wait))
                  break;
              }
            }
            if (c)
              say("claims: finished " + std::to_string(n) + " trial(s) of " + opt.claim
                  + (c->stopped() || claims_stop.requested()
                       ? "; stopped"
                       : std::string{"; none waits"} + (opt.claim_wait > 0 ? " (after --claim-wait)" : "")));
            else if (claim_status == 0)
              say("claims: stopped before the store " + opt.store + " was reached");
          } catch (const std::exception& e) {
            say(std::string{"claims: "} + e.what());
            claim_status = 1;
          }
          claims_running = false;
          ::kill(::getpid(), SIGUSR1);
        }};
      }
      int signal = 0;
      sigwait(&stop, &signal);
      say(std::string{"stopping ("}
          + (signal == SIGTERM   ? "SIGTERM"
             : signal == SIGINT  ? "SIGINT"
             : claim_status == 0 ? "no trial to claim"
                                 : "the claims ended")
          + ")");
      claims_stop.request();
      {
        std::lock_guard hold{claiming_lock};
        if (claiming && signal != SIGUSR1
            && claiming->stop_and_let_go(std::string{"its soma-node stopped ("}
                                         + (signal == SIGTERM ? "SIGTERM" : "SIGINT")
                                         + ") while it ran"))
          say("let go of the trial in hand: the next claim takes it");
      }
      status = claim_status;
      stopped_by_signal = true;
      auto bound = std::chrono::milliseconds(static_cast<std::int64_t>(opt.stop_within * 1000));
      deadline.emplace(bound, [&worker, &make_durable, &claims_running, code_dir, bound] {
        auto running = worker.running_slices();
        auto open = worker.open_sessions();
        bool claiming = claims_running;
        make_durable();
        std::error_code ignored;
        std::filesystem::remove_all(code_dir, ignored);
        if (running == 0 && open == 0 && !claiming) {
          // Everything was answered and closed; only CAF's own teardown
          // (its network layer, a detached thread) had not returned.
          say("stopped (CAF's shutdown had not returned within " + std::to_string(bound.count())
              + " ms, with nothing in flight: left without it)");
          return 0;
        }
        say("stop cut short after " + std::to_string(bound.count()) + " ms: "
            + std::to_string(running) + " slice(s) still running and " + std::to_string(open)
            + " session(s) still open were abandoned; their clients see the connection close"
            + (claiming ? "; the trial function still running was abandoned (its trial was let go "
                          "if it was in hand)"
                        : ""));
        say("stopped (cut short)");
        return cut_short_status;
      });
      caf::anon_send_exit(front, caf::exit_reason::user_shutdown);
      if (reporter)
        caf::anon_send_exit(reporter, caf::exit_reason::user_shutdown);
      if (metrics)
        metrics->stop();
      // Bound by the deadline armed above: a trial function that does not
      // return in time is cut short with everything else.
      if (claims.joinable())
        claims.join();
      claiming.reset();
    }
  }
  make_durable();
  std::error_code ignored;
  std::filesystem::remove_all(code_dir, ignored);
  if (stopped_by_signal)
    say("stopped");
  return status;
}

} // namespace

int main(int argc, char** argv) {
  CLI::App app{"soma-node: the soma worker. It serves the nodes of graphs that clients send it "
               "(.at(\"w1\")), over CAF's network layer (docs/remote.md)."};
  app.set_version_flag("--version", std::string{"soma-node "} + soma::version);
  options opt;
  app.add_option("--listen", opt.listen,
                 "HOST:PORT to listen on; port 0 takes a free one. The port is printed as the "
                 "first line of stdout. Beyond loopback mutual TLS is required")
    ->capture_default_str();
  app.add_option("--nodes", opt.nodes,
                 "a node library (built with soma_add_node_library) whose nodes this worker "
                 "serves by name (soma::mode::project); repeatable")
    ->check(CLI::ExistingFile);
  app.add_flag("--accept-code", opt.accept_code,
               "run node libraries that clients ship (soma::mode::network)");
  app.add_option("--store", opt.store,
                 "a store to write this worker's readings of itself into: a directory, or "
                 "soma://HOST:PORT for a store another soma-node serves (docs/fleet.md). A "
                 "served store that cannot be reached (at start or later) is tried again after "
                 "0.1 s, doubling to 5 s, each wait jittered between half and all of it; every "
                 "failed try is logged, readings meanwhile are dropped and counted, and the "
                 "worker serves slices all along (--claim waits to claim)");
  app.add_option("--serve-store", opt.serve_store,
                 "serve the store in DIR to writers and readers elsewhere (soma://HOST:PORT)");
  app.add_option("--reporting", opt.reporting,
                 "seconds between two readings (default 0.5 when --store is given)");
  app.add_option("--stop-within", opt.stop_within,
                 "seconds an orderly stop may take after SIGTERM or SIGINT; past them the worker "
                 "abandons what still runs, says so, and exits with status 3")
    ->capture_default_str();
  app.add_option("--connection-timeout", opt.silence,
                 "seconds a connection may send nothing before it is closed (CAF's heartbeat "
                 "beats every sixth of it); what is in flight to a silent peer then ends")
    ->capture_default_str();
  app.add_option("--claim", opt.claim,
                 "claim trials of STUDY from --store and run them with a trial function of a "
                 "--nodes library (SOMA_TRIAL_FUNCTIONS; docs/trials.md); exits once none waits")
    ->option_text("STUDY");
  app.add_option("--trial", opt.trial,
                 "the trial function to run them with (default: the one the study names, else "
                 "the only one the libraries give)")
    ->option_text("NAME");
  app.add_option("--claim-wait", opt.claim_wait,
                 "seconds to wait for a trial to be added once none waits, before stopping")
    ->capture_default_str();
  app.add_option("--metrics", opt.metrics,
                 "HOST:PORT to serve Prometheus metrics on, GET /metrics (port 0 takes a free one; "
                 "stderr says 'metrics at URL'). With --tls-cert and --tls-key it is HTTPS, and "
                 "beyond loopback it must be; a scraper needs no client certificate")
    ->option_text("HOST:PORT");
  app.add_option("--tls-cert", opt.tls_cert, "this worker's certificate (PEM)");
  app.add_option("--tls-key", opt.tls_key, "its private key (PEM)");
  app.add_option("--tls-ca", opt.tls_ca, "the CA a client's certificate must be signed by (PEM)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0)
      return app.exit(e);
    std::cerr << "soma-node: " << e.what() << "\n(soma-node --help says what it takes)\n";
    return 2;
  }
  return serve(opt);
}
