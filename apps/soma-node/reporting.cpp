#include "reporting.hpp"

#include <cstdio>

#include <caf/actor.hpp>

#include "log.hpp"
#include "soma/error.hpp"
#include "soma/remote/served_store.hpp"
#include "soma/worker/worker_reporter.hpp"

namespace soma::node_cli {

namespace {

// A served store is reached with this worker's own TLS files. A reading
// lost to a machine crash is replaced on the next tick; a claim or a result
// is not.
store_options readings_options_of(const options& opt) {
  store_options readings_options;
  readings_options.expendable = opt.claim.empty();
  readings_options.tls_cert = opt.tls_cert;
  readings_options.tls_key = opt.tls_key;
  readings_options.tls_ca = opt.tls_ca;
  return readings_options;
}

} // namespace

bool reach_readings_store(caf::actor_system& sys, const options& opt, std::optional<store>& opened,
                          std::function<store()>& reach) {
  if (opt.store.starts_with("soma://")) {
    reach = [&sys, where = opt.store, readings_options = readings_options_of(opt)] {
      auto opened = soma::open_store(sys, where, readings_options);
      if (!opened)
        throw soma::store_error(soma::describe(opened.error()), soma::trouble_of(opened.error()));
      return std::move(*opened);
    };
  } else if (!opt.store.empty()) {
    auto made = soma::open_store(sys, opt.store, readings_options_of(opt));
    if (!made) {
      std::fprintf(stderr, "soma-node: --store: %s\n", soma::describe(made.error()).c_str());
      return false;
    }
    opened = std::move(*made);
  }
  return true;
}

caf::actor start_reporting(caf::actor_system& sys, serve::worker_state& worker, const options& opt,
                           const std::optional<store>& opened, const std::function<store()>& reach,
                           const std::string& listens) {
  // A claimant reports for itself (with its trials), and for the slices
  // this worker serves; its first reading comes once it listens.
  if (opt.store.empty() || !opt.claim.empty())
    return {};
  return soma::serve::spawn_reporter(sys, worker, {.opened = opened, .open = reach, .name = opt.store},
                                     reporting_every(opt), listens, say);
}

} // namespace soma::node_cli
