#include "options.hpp"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include <CLI/CLI.hpp>

#include "soma/error.hpp"
#include "soma/store/trials.hpp"
#include "soma/version.hpp"

namespace soma::node_cli {

namespace {

// --listen and --metrics, and the TLS that listening beyond loopback needs.
std::optional<listening> check_listening(const options& opt) {
  listening at;
  auto& where = at.where;
  try {
    where = soma::parse_address(opt.listen, "--listen");
    if (!opt.metrics.empty())
      at.metrics_at = soma::parse_address(opt.metrics, "--metrics");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "soma-node: %s\n", e.what());
    return std::nullopt;
  }
  int tls_given = !opt.tls_cert.empty() + !opt.tls_key.empty() + !opt.tls_ca.empty();
  if (tls_given != 0 && tls_given != 3) {
    std::fprintf(stderr, "soma-node: mutual TLS needs all three of --tls-cert, --tls-key and "
                         "--tls-ca (the worker's certificate, its key, and the CA both sides trust)\n");
    return std::nullopt;
  }
  bool tls = at.tls = tls_given == 3;
  if (!tls && !soma::is_loopback(where.host)) {
    std::fprintf(stderr,
                 "soma-node: refusing to listen on %s without mutual TLS: any peer that connects "
                 "could run code here. Give --tls-cert, --tls-key and --tls-ca (a CA both sides "
                 "trust), or listen on 127.0.0.1\n",
                 where.host.c_str());
    return std::nullopt;
  }
  for (auto* f : {&opt.tls_cert, &opt.tls_key, &opt.tls_ca})
    if (tls && !std::filesystem::is_regular_file(*f)) {
      std::fprintf(stderr, "soma-node: cannot read the TLS file '%s'\n", f->c_str());
      return std::nullopt;
    }
  // Said here rather than by http_server: soma-node's TLS takes all three
  // files, where its HTTPS uses two and a scraper none.
  if (!opt.metrics.empty() && !tls && !soma::is_loopback(at.metrics_at.host)) {
    std::fprintf(stderr,
                 "soma-node: refusing to serve --metrics on %s without TLS: anyone who can reach "
                 "it would read this worker's metrics. Give --tls-cert, --tls-key and --tls-ca "
                 "(its HTTPS uses the certificate and key; a scraper needs no client "
                 "certificate), or serve them on 127.0.0.1\n",
                 opt.metrics.c_str());
    return std::nullopt;
  }
  return at;
}

// --reporting, which needs --store.
bool check_reporting(const options& opt) {
  if (opt.reporting && opt.store.empty()) {
    std::fprintf(stderr, "soma-node: --reporting needs --store: readings are written into a store\n");
    return false;
  }
  if (opt.reporting && !(*opt.reporting > 0 && *opt.reporting <= 3600)) {
    std::fprintf(stderr, "soma-node: --reporting takes seconds between readings, more than 0 and "
                         "at most 3600, not %g\n", *opt.reporting);
    return false;
  }
  return true;
}

// --claim, which needs --store, and --trial and --claim-wait, which go with it.
bool check_claims(const options& opt) {
  if (!opt.claim.empty() && opt.store.empty()) {
    std::fprintf(stderr, "soma-node: --claim needs --store: trials are claimed from a store (a "
                         "directory, or soma://HOST:PORT)\n");
    return false;
  }
  if (!opt.claim.empty()) {
    if (auto ok = soma::check_study_name(opt.claim); !ok) {
      std::fprintf(stderr, "soma-node: --claim: %s\n", soma::describe(ok.error()).c_str());
      return false;
    }
  }
  if (!opt.trial.empty() && opt.claim.empty()) {
    std::fprintf(stderr, "soma-node: --trial names the trial function of --claim STUDY; give --claim\n");
    return false;
  }
  if (!(opt.claim_wait >= 0 && opt.claim_wait <= 86400)) {
    std::fprintf(stderr, "soma-node: --claim-wait takes seconds, 0 to 86400, not %g\n", opt.claim_wait);
    return false;
  }
  return true;
}

// A served --store (soma://HOST:PORT). One that cannot be reached yet is
// tried again later; what no later try can mend is refused now.
bool check_served_store(const options& opt, bool tls) {
  if (!opt.store.starts_with("soma://"))
    return true;
  try {
    (void)soma::parse_address(std::string_view{opt.store}.substr(7), "--store");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "soma-node: %s (a served store is soma://HOST:PORT)\n", e.what());
    return false;
  }
  // With none of its own TLS files, a served store would be reached with
  // $SOMA_TLS_*, which this worker's actor system was not made with.
  if (!tls)
    for (auto* name : {"SOMA_TLS_CERT", "SOMA_TLS_KEY", "SOMA_TLS_CA"})
      if (auto* v = std::getenv(name); v && *v) {
        std::fprintf(stderr, "soma-node: --store %s: $%s is set, but soma-node reaches a served "
                             "store with its own TLS files: give --tls-cert, --tls-key and "
                             "--tls-ca (or unset $SOMA_TLS_CERT, $SOMA_TLS_KEY, $SOMA_TLS_CA)\n",
                     opt.store.c_str(), name);
        return false;
      }
  return true;
}

} // namespace

std::optional<int> parse_options(int argc, char** argv, options& opt) {
  CLI::App app{"soma-node: the soma worker. It serves the nodes of graphs that clients send it "
               "(.at(\"w1\")), over CAF's network layer (docs/remote.md)."};
  app.set_version_flag("--version", std::string{"soma-node "} + soma::version);
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
  app.add_option("--store-sessions", opt.store_sessions,
                 "most sessions of the served store open at once; a client past it is refused "
                 "with a message saying so and tries again later. Each is a socket: soma-node "
                 "raises its open-files limit as far as the system lets it, and says so when "
                 "that is below this")
    ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 20))
    ->capture_default_str();
  app.add_option("--reporting", opt.reporting,
                 "seconds between two readings (default 0.5 when --store is given)");
  app.add_option("--stop-within", opt.stop_within,
                 "seconds an orderly stop may take after SIGTERM, SIGINT or its lifeline closing "
                 "(worker::spawn); past them the worker "
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
    return exit_usage;
  }
  return std::nullopt;
}

std::optional<listening> check_options(const options& opt) {
  auto at = check_listening(opt);
  if (!at || !check_reporting(opt) || !check_claims(opt) || !check_served_store(opt, at->tls))
    return std::nullopt;
  return at;
}

bool check_bounds(const options& opt) {
  if (!(opt.stop_within > 0 && opt.stop_within <= 60)) {
    std::fprintf(stderr, "soma-node: --stop-within takes seconds, more than 0 and at most 60, "
                         "not %g\n", opt.stop_within);
    return false;
  }
  if (!(opt.silence >= 0.2 && opt.silence <= 3600)) {
    std::fprintf(stderr, "soma-node: --connection-timeout takes seconds, at least 0.2 and at most "
                         "3600, not %g\n", opt.silence);
    return false;
  }
  return true;
}

std::chrono::microseconds reporting_every(const options& opt) {
  return std::chrono::microseconds(static_cast<std::int64_t>(opt.reporting.value_or(0.5) * 1e6));
}

} // namespace soma::node_cli
