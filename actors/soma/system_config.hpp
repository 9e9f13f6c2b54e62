#pragma once

/// @file
/// soma::system_config: a caf::actor_system_config with soma's types known
/// and defaults suited to graphs of small actors.

#include <chrono>

#include <caf/actor_system_config.hpp>

#include "soma/export.hpp"
#include "soma/remote/worker.hpp"

SOMA_API_BEGIN

namespace soma {

/// An actor system configuration for soma.
///
/// Announces `soma::fact` (so facts can cross the network), renders soma's
/// errors, and tunes CAF's work-stealing scheduler for forwards that hop
/// between a few small actors (measured in benchmarks/forward, see
/// docs/architecture.md):
/// - `scheduler.max-threads` = the core count, not CAF's max(cores, 4);
/// - `work-stealing.moderate-poll-attempts` = 0: CAF's idle workers otherwise
///   sleep 50 µs at a stretch that no new message can cut short, which made a
///   forward arriving at an idle graph wait 170 µs instead of 33 µs and kept
///   a third of a core busy polling;
/// - `work-stealing.aggressive-poll-attempts` = 2000: a worker that just ran
///   a forward spins a little longer before it sleeps, so back-to-back
///   forwards find it awake.
/// - CAF's network layer (the `caf::io` middleman) is loaded, with
///   `middleman.workers` = 0 (the multiplexer thread deserialises itself
///   instead of handing each message to another thread), so graphs can send
///   nodes to workers (docs/remote.md).
/// - CAF's connection heartbeat is on: every connection (to a worker, from a
///   client, to a served store) sends a beat every `silence / 6`, and one
///   that has sent nothing for `silence` (3 s by default) is closed, so
///   whatever was in flight to a peer that stopped, whose packets are
///   dropped or whose host is gone ends within `silence` plus one beat
///   (detection_bound()). A healthy idle connection keeps beating and never
///   times out. Both ends must beat: a peer made from a plain CAF config
///   with `middleman.heartbeat-interval` 0 is cut off after `silence`.
/// - soma's limits on what a peer may send before and after it is
///   authenticated (`soma.wire-limits`, docs/remote.md "Limits on what a
///   peer may send"), a connect's silence clock started at the connect
///   (`soma.handshake-clock`: CAF 0.17 starts it at the clock's epoch, so
///   the first beat could close a connect still waiting for its handshake),
///   and on this system's threads the OpenSSL error queue cleared before
///   CAF's TLS calls (CAF 0.17 omits it). All three reach only actor
///   systems made from a soma::system_config: a plain
///   caf::actor_system_config beside it keeps CAF's behaviour
///   (docs/architecture.md, "What linking soma changes in your process").
/// Everything stays overridable as with any CAF config: `set()`, a config
/// file, or the command line (`--scheduler.max-threads=8`) through `parse()`.
class system_config : public caf::actor_system_config {
public:
  system_config();

  /// Loads CAF's TLS module with these files: connections to and from
  /// workers then are mutual TLS (soma::worker::connect with the same
  /// `tls`). Returns *this.
  system_config& use_tls(const soma::tls& files);

  /// Sets how long a connection may send nothing before it is closed
  /// (`middleman.connection-timeout`; the heartbeat interval becomes a sixth
  /// of it, at least 50 ms). Returns *this.
  system_config& detect_within(std::chrono::milliseconds silence);

  /// The silence allowed by default: 3 s.
  static constexpr std::chrono::milliseconds default_detection{3000};
};

/// How long a connection of an actor system made from `cfg` may send
/// nothing before it is closed (0: never).
[[nodiscard]] std::chrono::milliseconds silence_allowed(const caf::actor_system_config& cfg);

/// The bound on noticing a silent peer: the silence allowed plus one beat.
[[nodiscard]] std::chrono::milliseconds detection_bound(const caf::actor_system_config& cfg);

} // namespace soma

SOMA_API_END
