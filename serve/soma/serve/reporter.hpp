#pragma once

/// @file
/// The worker's reporter: a reading of itself into a store on its own clock,
/// whether or not anyone sends it work.

#include <chrono>

#include <caf/actor.hpp>
#include <caf/fwd.hpp>

#include "soma/serve/catalog.hpp"
#include "soma/serve/server.hpp"
#include "soma/store/store.hpp"

namespace soma::serve {

/// Spawns the reporter: it writes a reading into `into` now and then every
/// `every`, saying it listens at `listens` (host:port) and serves the node
/// types of its libraries and its served store. busy is measured over each
/// interval. A write that fails is
/// logged (once until one succeeds again) and the next tick tries again.
/// Every write is counted into `worker.counts`, written or failed.
caf::actor spawn_reporter(caf::actor_system& sys, worker_state& worker, store into,
                          std::chrono::microseconds every, std::string listens, log_line log);

} // namespace soma::serve
