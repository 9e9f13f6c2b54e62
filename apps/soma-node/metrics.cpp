#include "metrics.hpp"

#include <chrono>
#include <cstdio>

#include <httplib.h>

#include "soma/worker/worker_state.hpp"
#include "soma/version.hpp"
#include "soma/web/metrics.hpp"

namespace soma::node_cli {

namespace {

// The worker's exposition: one family per count, every one present from the
// first scrape on (a count not yet moved is 0, never missing).
std::string exposition_of(const serve::counters& c, const std::string& machine) {
  web::exposition out;
  out.family("soma_node_info", "gauge",
             "The worker: its machine id in its readings (hostname-pid) and soma's version. Always 1.");
  out.sample({{"id", machine}, {"version", soma::version}}, 1);
  out.family("soma_node_up_seconds", "gauge", "Seconds since the worker started.");
  out.sample({}, std::chrono::duration<double>(std::chrono::steady_clock::now() - c.began).count());
  struct count {
    const char* name;
    const char* type;
    const char* help;
    double value;
  };
  auto n = [](const auto& atomic) { return static_cast<double>(atomic.load()); };
  const count counts[] = {
    {"soma_node_sessions_opened_total", "counter",
     "Sessions opened: clients running slices, and clients of the store it serves.",
     n(c.sessions_opened)},
    {"soma_node_sessions_open", "gauge", "Sessions open now.", n(c.sessions_open)},
    {"soma_node_slices_served_total", "counter",
     "Slices answered (one refused for lack of code, sent again once shipped, is not one).",
     n(c.slices_served)},
    {"soma_node_slices_failed_total", "counter", "Slices answered whose node threw.",
     n(c.slices_failed)},
    {"soma_node_slices_refused_total", "counter",
     "Slices refused: undecodable, a node it does not serve, other code, an output that does not encode.",
     n(c.slices_refused)},
    {"soma_node_slices_running", "gauge", "Slices running now.", n(c.slices_running)},
    {"soma_node_readings_total", "counter", "Readings of itself written into --store.",
     n(c.readings_written)},
    {"soma_node_reading_failures_total", "counter", "Readings of itself that could not be written, other than those dropped (below).",
     n(c.reading_failures)},
    {"soma_node_readings_dropped_total", "counter",
     "Readings of itself dropped because --store could not be reached (not queued).",
     n(c.readings_dropped)},
    {"soma_node_store_ops_total", "counter",
     "Operations asked of the store it serves (--serve-store): writes, reads, claims.",
     n(c.store_ops)},
  };
  for (auto& x : counts) {
    out.family(x.name, x.type, x.help);
    out.sample({}, x.value);
  }
  return out.text();
}

} // namespace

metrics_endpoint::metrics_endpoint(const serve::counters& counts, std::string machine,
                                   const web::http_options& options)
  : server_(options) {
  auto& routes = server_.routes();
  // One request per connection, and a connection that sends nothing is
  // let go after 1 s: httplib waits out an idle connection before its
  // thread sees a stop, and a worker's stop is bounded (--stop-within). A
  // scraper asks once every few seconds, and gains nothing from keeping it.
  routes.set_keep_alive_max_count(1);
  routes.set_keep_alive_timeout(1);
  routes.Get("/metrics", [&counts, machine](const httplib::Request&, httplib::Response& res) {
    res.set_content(exposition_of(counts, machine), std::string{web::exposition::content_type});
  });
  // httplib answers what no route takes with an empty body; say what is here.
  using httplib::Server;
  routes.set_error_handler(Server::HandlerWithResponse{
    [](const httplib::Request& req, httplib::Response& res) {
      if (!res.body.empty())
        return Server::HandlerResponse::Unhandled;
      web::refuse(res, res.status,
                  "soma-node --metrics answers GET /metrics only, not " + req.method + " " + req.path);
      return Server::HandlerResponse::Handled;
    }});
}

void metrics_endpoint::start() {
  // Bound already: run() fails only when stop() came first.
  thread_ = std::thread{[this] { (void)server_.run(); }};
}

void metrics_endpoint::stop() {
  server_.stop();
}

metrics_endpoint::~metrics_endpoint() {
  stop();
  if (thread_.joinable())
    thread_.join();
}

bool open_metrics(const options& opt, serve::worker_state& worker,
                  std::optional<metrics_endpoint>& endpoint) {
  try {
    endpoint.emplace(worker.counts, worker.sampler().id(),
                     soma::web::http_options{.listen = opt.metrics,
                                             .tls_cert = opt.tls_cert,
                                             .tls_key = opt.tls_key,
                                             .threads = 4,
                                             .live_cap = 1, // none is used: below threads
                                             .queued = 64,
                                             .who = "soma-node --metrics"});
  } catch (const soma::web::http_error& e) {
    // What is left is not usage (checked before): the port, or the
    // certificate, which CAF's listening would fail on too.
    std::fprintf(stderr, "soma-node: --metrics: %s\n", e.what());
    return false;
  }
  return true;
}

} // namespace soma::node_cli
