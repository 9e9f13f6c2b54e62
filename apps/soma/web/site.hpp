#pragma once

/// @file
/// soma::web::site: the routes of `soma serve` (docs/web.md): the pages (one
/// page and its script, which render what the JSON API answers), the API,
/// live events, traces and metrics, all read from one store through
/// read-only transactions (or a served store's backend).

#include <chrono>
#include <cstddef>
#include <memory>

#include "soma/store/store.hpp"

namespace soma {
class runs_tally;
} // namespace soma

namespace soma::web {

class http_server;
class store_watch;

struct site_options {
  /// How often live streams look whether the store moved: 25 ms for a local
  /// store (mdb_env_info: no transaction, no lock), 250 ms for a served one
  /// (a round trip each).
  std::chrono::milliseconds watch_every{25};
  /// The cap on a trace's size, /trace's max_bytes unless it asks for less.
  std::size_t trace_max_bytes = 50u << 20;
};

class site {
public:
  /// Adds the routes to `server`, reading `s`; the site must outlive the
  /// server's run().
  site(http_server& server, store s, const site_options& options = {});
  ~site();

  site(const site&) = delete;
  site& operator=(const site&) = delete;

  /// Ends live streams (they finish within a second).
  void stop();

private:
  store store_;
  std::unique_ptr<runs_tally> tally_; // the runs page, its stream and /metrics: what is new
  std::unique_ptr<store_watch> watch_;
};

} // namespace soma::web
