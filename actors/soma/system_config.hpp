#pragma once

/// @file
/// soma::system_config: a caf::actor_system_config with soma's types known
/// and defaults suited to graphs of small actors.

#include <caf/actor_system_config.hpp>

namespace soma {

/// An actor system configuration for soma.
///
/// Announces `soma::fact` (so facts can cross the network), renders soma's
/// errors, and sets `scheduler.max-threads` to the number of cores rather than
/// CAF's max(cores, 4): on a two-core machine, four workers make every
/// forward pay for thread hand-offs. Everything stays overridable as with any
/// CAF config (`--caf.scheduler.max-threads=8`, a config file, `set()`).
class system_config : public caf::actor_system_config {
public:
  system_config();
};

} // namespace soma
