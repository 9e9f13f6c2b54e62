// A connection this process makes has the whole silence allowed
// (`middleman.connection-timeout`) to receive the peer's handshake, as every
// other connection has.
//
// CAF 0.17's BASP broker keeps, for each connection, when it last heard from
// the peer (`endpoint_context::last_seen`); its heartbeat tick closes every
// connection not heard from for the connection timeout, with
// `sec::connection_timeout`. A connection a peer makes to us gets its entry
// when its first bytes arrive, stamped then (`basp_broker::set_context`).
// A connection we make (`connect_atom`: caf's remote_actor,
// soma::worker::connect, a soma:// store) gets its entry from `ctx[hdl]`
// in the connect handler (basp_broker.cpp), which leaves `last_seen` at the
// clock's epoch (the machine's boot, for steady_clock) until the server's
// handshake arrives. The first tick in that gap (one every sixth of the
// silence allowed: 0.5 s by default) sees hours of silence and closes it,
// and remote_actor fails at once with system_error(connection_timeout). A
// connect fails so with the odds of its handshake's time over the beat:
// with the server's first bytes held back 50 ms, 9 of 80 connects failed
// (none with this file). Rare on an idle loopback, but a TLS handshake
// with a server just started on a busy machine takes that long
// (remote_test.served_readers and remote_test.remote_tls failed so in 2 of
// 9 suite runs); and a listener that never answers was given up on within
// one beat instead of the silence allowed. CAF 0.18 and 0.19 do the same.
//
// Right after making the entry, the connect handler calls
// `abstract_broker::configure_read`, on the broker's own thread (no tick
// can run in between), through libcaf_io's PLT (as it calls
// basp::instance::handle, wire_limits.cpp): this definition, exported by
// libsoma and so found before libcaf_io's, calls CAF's own, then stamps
// an entry that was never stamped with the broker's clock. It changes
// nothing for any other broker or call. (Debian's libcaf_io 0.17.6 makes
// that call through its PLT, as its disassembly shows; were a build of CAF
// to bind it directly, this would no longer be reached, and the two connect
// cases of tests/remote/detection_test.cpp would fail as they do without it.)
//
// Only for actor systems whose config sets `soma.handshake-clock`
// (soma::system_config does): a program's own actor systems beside soma
// keep CAF's behaviour, epoch and all (docs/architecture.md, "What linking
// soma changes in your process"; tests/coexist/caf_test.cpp).

#include <dlfcn.h>

#include <caf/io/abstract_broker.hpp>
#include <caf/io/basp_broker.hpp>

#include "soma/export.hpp"
#include "soma/remote/handshake_clock.hpp"

namespace {

using caf::io::abstract_broker;
using caf::io::connection_handle;
using caf::io::receive_policy;

using configure_read_fn = void (*)(abstract_broker*, connection_handle, receive_policy::config);

configure_read_fn cafs_own() {
  // Resolved once; function-local statics need no global constructor.
  static auto fn = reinterpret_cast<configure_read_fn>(dlsym(
    RTLD_NEXT,
    "_ZN3caf2io15abstract_broker14configure_readENS0_17connection_handleESt4pairINS0_19receive_policy_flagEmE"));
  return fn;
}

} // namespace

namespace caf::io {

// SOMA_API_EXPORT: exported (libsoma hides what it does not), or
// libcaf_io's own would be found first.
SOMA_API_EXPORT void abstract_broker::configure_read(connection_handle hdl,
                                                     receive_policy::config cfg) {
  if (auto own = cafs_own())
    own(this, hdl, cfg); // always there while libcaf_io is loaded
  auto* basp = dynamic_cast<basp_broker*>(this);
  if (basp == nullptr)
    return;
  // (BASP reconfigures its read for every header and payload: the setting is
  // looked up only for an entry never stamped, once a connection.)
  auto i = basp->ctx.find(hdl);
  if (i != basp->ctx.end() && i->second.last_seen == actor_clock::time_point{}
      && caf::get_or(basp->system().config(), "soma.handshake-clock", false))
    i->second.last_seen = basp->clock().now();
}

} // namespace caf::io

namespace soma::detail {

void declare_handshake_clock(caf::config_option_set& options) {
  caf::config_option_adder{options, "soma"}.add<bool>(
    "handshake-clock", "give a connect the silence allowed for its handshake (soma::system_config: on)");
}

} // namespace soma::detail
