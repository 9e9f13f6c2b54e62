#include "soma/system_config.hpp"

#include <algorithm>
#include <cstdio>
#include <thread>

#include <caf/io/middleman.hpp>
#include <caf/openssl/manager.hpp>

#include "soma/error.hpp"
#include "soma/fact.hpp"
#include "soma/remote/handshake_clock.hpp"
#include "soma/remote/openssl_error_queue.hpp"
#include "soma/remote/wire_limits.hpp"
#include "soma/watching.hpp"

namespace soma {

system_config::system_config() {
  auto cores = std::max(1u, std::thread::hardware_concurrency());
  set("scheduler.max-threads", static_cast<size_t>(cores));
  set("work-stealing.moderate-poll-attempts", size_t{0});
  set("work-stealing.aggressive-poll-attempts", size_t{2000});
  add_message_type<fact>("soma::fact");
  add_message_type<forward_facts>("soma::forward_facts");
  load<caf::io::middleman>();
  set("middleman.workers", size_t{0});
  detect_within(default_detection);
  // All three for this actor system only: a program's own CAF systems and
  // threads beside it are left as CAF and OpenSSL make them.
  detail::declare_wire_limits(custom_options_);
  set("soma.wire-limits", true);
  detail::declare_handshake_clock(custom_options_);
  set("soma.handshake-clock", true);
  detail::clear_openssl_errors_on_threads(*this);
  add_error_category(error_category, [](std::uint8_t code, caf::atom_value, const caf::message& ctx) {
    return describe(caf::error{code, error_category, ctx});
  });
}

system_config& system_config::detect_within(std::chrono::milliseconds silence) {
  using namespace std::chrono;
  // Four heartbeats fit in the silence a connection is allowed, so one late
  // beat (a busy machine) is never taken for a lost peer.
  auto beat = std::max(milliseconds{50}, silence / 6);
  set("middleman.heartbeat-interval", caf::timespan{duration_cast<nanoseconds>(beat)});
  set("middleman.connection-timeout", caf::timespan{duration_cast<nanoseconds>(silence)});
  return *this;
}

std::chrono::milliseconds silence_allowed(const caf::actor_system_config& cfg) {
  auto t = caf::get_or(cfg, "middleman.connection-timeout", caf::timespan{0});
  return std::chrono::duration_cast<std::chrono::milliseconds>(t);
}

std::chrono::milliseconds detection_bound(const caf::actor_system_config& cfg) {
  auto beat = caf::get_or(cfg, "middleman.heartbeat-interval", caf::timespan{0});
  return silence_allowed(cfg) + std::chrono::duration_cast<std::chrono::milliseconds>(beat);
}

system_config& system_config::use_tls(const soma::tls& files) {
  if (!detail::openssl_calls_reach_soma())
    std::fprintf(stderr, "soma: warning: this program links libssl before libsoma, so "
                         "CAF's TLS sessions call OpenSSL without soma's fix, and one client's "
                         "refused handshake can close other TLS connections; let soma::soma bring "
                         "OpenSSL instead of naming OpenSSL::SSL (docs/architecture.md, \"What "
                         "linking soma changes in your process\")\n");
  load<caf::openssl::manager>();
  openssl_certificate = files.cert;
  openssl_key = files.key;
  openssl_cafile = files.ca;
  return *this;
}

} // namespace soma
