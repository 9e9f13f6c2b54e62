#pragma once

/// @file
/// The actors of a soma-node worker: the front actor it publishes, and one
/// session actor per client connection.

#include <functional>
#include <string>

#include <caf/actor.hpp>
#include <caf/fwd.hpp>

#include "soma/export.hpp"
#include "soma/worker/worker_state.hpp"

SOMA_API_BEGIN

namespace soma::serve {

/// Where a worker says what happens to its sessions: one line per event.
using log_line = std::function<void(const std::string&)>;

/// Spawns the front actor: it opens a session for every `(open_atom, client,
/// mode)` and logs each session opened and closed. `worker` outlives it.
caf::actor spawn_front(caf::actor_system& sys, worker_state& worker, log_line log);

} // namespace soma::serve

SOMA_API_END
