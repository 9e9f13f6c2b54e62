#pragma once

/// @file
/// soma::system_config: a caf::actor_system_config with soma's types known
/// and defaults suited to graphs of small actors.

#include <caf/actor_system_config.hpp>

#include "soma/worker.hpp"

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
/// Everything stays overridable as with any CAF config: `set()`, a config
/// file, or the command line (`--scheduler.max-threads=8`) through `parse()`.
class system_config : public caf::actor_system_config {
public:
  system_config();

  /// Loads CAF's TLS module with these files: connections to and from
  /// workers then are mutual TLS (soma::worker::connect with the same
  /// `tls`). Returns *this.
  system_config& use_tls(const soma::tls& files);
};

} // namespace soma
