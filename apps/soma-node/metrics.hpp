#pragma once

/// @file
/// `soma-node --metrics HOST:PORT`: the worker's counters over HTTP, in
/// Prometheus' text format (docs/remote.md, "Metrics").

#include <optional>
#include <string>
#include <thread>

#include "options.hpp"
#include "soma/worker/counters.hpp"
#include "soma/web/http.hpp"

namespace soma::serve {
class worker_state;
} // namespace soma::serve

namespace soma::node_cli {

/// `GET /metrics` answering a worker's counters, served on a thread of its
/// own; anything else is a 404 saying what is there. A scrape reads the
/// counters' atomics and nothing else: it never waits on the worker.
class metrics_endpoint {
public:
  /// Binds `options.listen` (HTTPS with `options.tls_cert` and `tls_key`).
  /// `counts` outlives this; `machine` is the worker's id in its readings.
  /// Throws web::http_error naming what was wrong: the address, TLS files
  /// that do not load, a port that cannot be bound.
  metrics_endpoint(const serve::counters& counts, std::string machine, const web::http_options& options);

  /// stop(), then waits for the requests in hand (a connection that sent
  /// nothing is let go within 1 s).
  ~metrics_endpoint();

  metrics_endpoint(const metrics_endpoint&) = delete;
  metrics_endpoint& operator=(const metrics_endpoint&) = delete;

  /// Starts serving, on a thread of its own. At most once.
  void start();

  /// Stops taking connections: the port is closed once it returns.
  /// Idempotent; safe from any thread.
  void stop();

  /// Where to scrape: `http://HOST:PORT/metrics` (https with TLS).
  [[nodiscard]] std::string url() const { return server_.url() + "metrics"; }

private:
  web::http_server server_;
  std::thread thread_;
};

/// Binds --metrics for `worker` into `endpoint`, before the actor system is
/// made, so that a port taken costs no teardown; served once the worker
/// listens. Returns false once stderr said why it cannot be bound
/// (exit_cannot): the port, or the certificate.
[[nodiscard]] bool open_metrics(const options& opt, serve::worker_state& worker,
                                std::optional<metrics_endpoint>& endpoint);

} // namespace soma::node_cli
