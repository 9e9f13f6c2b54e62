// What a peer may make a process allocate before it is trusted.
//
// CAF 0.17's BASP reads a 32-byte header, then allocates whatever payload
// length it claims (up to 4 GiB) and waits for it, even from a peer that
// has not completed a handshake: one connection claiming 1.5 GB cost a
// worker 1.4 GB of RSS for as long as it stayed open
// (../shared/notes/caf-0.17.md). CAF has no setting for it, so soma wraps
// the one function that decides, `caf::io::basp::instance::handle` for a
// new header, as it wraps OpenSSL's I/O calls (openssl_error_queue.cpp):
// libcaf_io calls it through its PLT, so this definition, loaded before
// libcaf_io, is the one it reaches, and it calls CAF's own after checking.
//
// The limits (docs/remote.md, "Limits"):
// - a peer that has not completed BASP's handshake may announce at most
//   `soma.max-handshake-bytes` (64 KiB) of payload, and must complete the
//   handshake within `soma.handshake-within` (the connection timeout, 3 s)
//   of its first header; at most `soma.max-unauthenticated` (256)
//   connections that sent a header may be unauthenticated at once;
// - any message at all is at most `soma.max-message-bytes` (1 GiB).
// A header past a limit closes the connection before anything is
// allocated for its payload.
//
// The definition is the process's (symbol interposition is decided when the
// process links), so it checks only for the actor systems soma configured:
// those whose config says `soma.wire-limits` (soma::system_config sets
// it). For any other actor system, a program's own CAF remote
// actors beside soma, it calls CAF's own at once and changes nothing
// (tests/coexist/caf_test.cpp). Each actor system's unauthenticated peers
// are counted apart.

#include <dlfcn.h>
#include <sys/socket.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <utility>

#include <caf/actor_system_config.hpp>
#include <caf/config_option_adder.hpp>
#include <caf/io/basp/instance.hpp>
#include <caf/io/system_messages.hpp>

#include "soma/export.hpp"
#include "soma/remote/wire_limits.hpp"
#include "soma/system_config.hpp"

namespace {

using caf::io::basp::connection_state;
using caf::io::basp::header;
using caf::io::basp::instance;
using steady = std::chrono::steady_clock;

using handle_fn = connection_state (*)(instance*, caf::execution_unit*, caf::io::new_data_msg&,
                                       header&, bool);

handle_fn cafs_own() {
  // Resolved once; function-local statics need no global constructor.
  static handle_fn fn = reinterpret_cast<handle_fn>(dlsym(
    RTLD_NEXT, "_ZN3caf2io4basp8instance6handleEPNS_14execution_unitERNS0_12new_data_msgERNS1_6headerEb"));
  return fn;
}

// Connections that sent a header but have not completed the handshake, by
// BASP instance (one per actor system) and connection id: when their first
// header came.
// CAF's connection id is the socket's descriptor, which the kernel hands out
// again once a connection closes: an entry also names the peer, so a new
// connection on a reused descriptor starts its own clock.
struct first_header {
  steady::time_point at;
  std::string peer; ///< getpeername's bytes
};

struct unauthenticated {
  std::mutex lock;
  std::map<const void*, std::map<std::int64_t, first_header>> since;
};

// The peer's address of connection `id` (a socket descriptor), as bytes.
std::string peer_of(std::int64_t id) {
  sockaddr_storage addr{};
  socklen_t len = sizeof addr;
  if (getpeername(static_cast<int>(id), reinterpret_cast<sockaddr*>(&addr), &len) != 0)
    return {};
  return std::string{reinterpret_cast<const char*>(&addr), len};
}

unauthenticated& pending() {
  static unauthenticated p;
  return p;
}

// Whether a connection that has not completed its handshake may go on.
// `silence` is the connection timeout: a connection whose first header is
// older than `within` plus twice that is surely closed (any header after
// `within` is refused and closes it, and one that sends nothing is timed
// out), so its entry can go.
bool may_go_on(const instance* self, std::int64_t id, std::chrono::milliseconds within,
               std::chrono::milliseconds silence, std::size_t at_most) {
  auto& p = pending();
  auto now = steady::now();
  std::lock_guard guard{p.lock};
  for (auto s = p.since.begin(); s != p.since.end();) {
    auto& entries = s->second;
    for (auto i = entries.begin(); i != entries.end();)
      i = now - i->second.at > within + 2 * silence ? entries.erase(i) : std::next(i);
    s = entries.empty() ? p.since.erase(s) : std::next(s);
  }
  auto& mine = p.since[self];
  auto peer = peer_of(id);
  auto i = mine.find(id);
  if (i != mine.end() && i->second.peer != peer) {
    mine.erase(i); // a closed connection's descriptor, reused
    i = mine.end();
  }
  bool go_on = true;
  if (i == mine.end()) {
    go_on = mine.size() < at_most;
    if (go_on)
      mine.emplace(id, first_header{now, std::move(peer)});
  } else if (now - i->second.at > within) {
    mine.erase(i); // refused: the connection closes
    go_on = false;
  }
  if (mine.empty())
    p.since.erase(self);
  return go_on;
}

void authenticated(const instance* self, std::int64_t id) {
  auto& p = pending();
  std::lock_guard guard{p.lock};
  auto mine = p.since.find(self);
  if (mine == p.since.end())
    return;
  mine->second.erase(id);
  if (mine->second.empty())
    p.since.erase(mine);
}

} // namespace

namespace caf::io::basp {

// SOMA_API_EXPORT: libsoma hides what it does not export, and this
// definition must be exported to be found before libcaf_io's.
SOMA_API_EXPORT connection_state instance::handle(execution_unit* ctx, new_data_msg& dm,
                                           header& hdr, bool is_payload) {
  auto own = cafs_own();
  if (!own)
    return malformed_basp_message; // cannot happen while libcaf_io is loaded
  auto& cfg = config();
  if (!caf::get_or(cfg, "soma.wire-limits", false))
    return own(this, ctx, dm, hdr, is_payload); // not an actor system soma configured
  bool trusted = tbl().lookup_direct(dm.handle) != none;
  if (!is_payload && !trusted) {
    auto within = soma::silence_allowed(cfg);
    if (within.count() <= 0)
      within = std::chrono::milliseconds{3000};
    auto handshake_within = caf::get_or(cfg, "soma.handshake-within", caf::timespan{within});
    auto at_most = caf::get_or(cfg, "soma.max-unauthenticated", std::size_t{256});
    if (!may_go_on(this, dm.handle.id(),
                   std::chrono::duration_cast<std::chrono::milliseconds>(handshake_within), within,
                   at_most))
      return malformed_basp_message;
  }
  auto next = own(this, ctx, dm, hdr, is_payload);
  if (next == await_payload) {
    auto cap = trusted ? caf::get_or(cfg, "soma.max-message-bytes", std::size_t{1} << 30)
                       : caf::get_or(cfg, "soma.max-handshake-bytes", std::size_t{64} << 10);
    if (hdr.payload_len > cap)
      return malformed_basp_message; // closed before its payload is allocated
  } else if (!trusted && next == await_header && tbl().lookup_direct(dm.handle) != none) {
    authenticated(this, dm.handle.id());
  }
  return next;
}

} // namespace caf::io::basp

namespace soma::detail {

void declare_wire_limits(caf::config_option_set& options) {
  caf::config_option_adder{options, "soma"}
    .add<bool>("wire-limits", "limit what peers may send (soma::system_config: on)")
    .add<std::size_t>("max-handshake-bytes",
                      "a message before the peer completed BASP's handshake (64 KiB)")
    .add<caf::timespan>("handshake-within",
                        "from a peer's first header to its completed handshake (the "
                        "connection timeout)")
    .add<std::size_t>("max-unauthenticated",
                      "peers that sent a header but have not completed the handshake (256)")
    .add<std::size_t>("max-message-bytes", "any message (1 GiB)");
}

} // namespace soma::detail
