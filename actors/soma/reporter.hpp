#pragma once

/// @file
/// A machine's reporter: a reading of itself into a store on its own clock,
/// whether or not anyone gives it work (docs/fleet.md). A soma-node worker
/// has one, and so has every trial claimant (soma/claimant.hpp), so that an
/// idle claimant is as visible as an idle worker.

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <caf/actor.hpp>
#include <caf/fwd.hpp>

#include "soma/store/store.hpp"

namespace soma {

class machine_sampler;

/// What a machine's reading says beside what the sampler measures.
struct reported {
  std::uint64_t served = 0; ///< slices served (a worker)
  std::uint64_t trials = 0; ///< trials finished (a claimant)
  std::string claims;       ///< the study claimed from (a claimant)
  std::string listens;      ///< host:port it listens at (a worker)
  std::vector<std::string> serves; ///< the node types it serves (a worker)
  std::string serves_store; ///< the store directory it serves (a worker with --serve-store)
};

/// Spawns a reporter: it writes a reading into `into` now (unless `first_now`
/// is false: its caller wrote one) and then every `every`, sampled by `sampler` and completed by `counts()` (called on the
/// reporter's thread). busy is measured over each interval. A write that
/// fails is given to `log` (once until one succeeds again), and the next
/// tick tries again. `wrote`, when given, is told of every write, whether
/// it was written (on the reporter's thread). It stops on an exit message,
/// within one write.
caf::actor spawn_reporter(caf::actor_system& sys, store into, std::chrono::microseconds every,
                          std::shared_ptr<machine_sampler> sampler,
                          std::function<reported()> counts,
                          std::function<void(const std::string&)> log, bool first_now = true,
                          std::function<void(bool written)> wrote = {});

} // namespace soma
