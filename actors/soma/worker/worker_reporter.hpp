#pragma once

/// @file
/// The worker's reporter: a reading of itself into a store on its own clock,
/// whether or not anyone sends it work.

#include <chrono>

#include <caf/actor.hpp>
#include <caf/fwd.hpp>

#include "soma/export.hpp"
#include "soma/reporter.hpp"
#include "soma/worker/server.hpp"
#include "soma/worker/worker_state.hpp"

SOMA_API_BEGIN

namespace soma::serve {

/// Spawns the reporter: it writes a reading into `into` now and then every
/// `every`, saying it listens at `listens` (host:port) and serves the node
/// types of its libraries and its served store. busy is measured over each
/// interval. A store not reached yet (a served store, `into.open`) or lost
/// is tried again with a backoff while readings are dropped
/// (soma::spawn_reporter says how); the worker serves meanwhile. Every
/// reading is counted into `worker.counts`: written, failed or dropped.
caf::actor spawn_reporter(caf::actor_system& sys, worker_state& worker, reporting_to into,
                          std::chrono::microseconds every, std::string listens, log_line log);

} // namespace soma::serve

SOMA_API_END
