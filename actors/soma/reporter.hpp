#pragma once

/// @file
/// A machine's reporter: a reading of itself into a store on its own clock,
/// whether or not anyone gives it work (docs/fleet.md). A soma-node worker
/// has one, and so has every trial claimant (soma/trials/claimant.hpp), so that an
/// idle claimant is as visible as an idle worker.

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <caf/actor.hpp>
#include <caf/fwd.hpp>

#include "soma/backoff.hpp"
#include "soma/export.hpp"
#include "soma/store/store.hpp"

SOMA_API_BEGIN

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

/// The store a reporter writes into: one open already, or one it opens
/// itself (a served store, `soma://`, that may not be reachable yet).
struct reporting_to {
  /// The store, open; none: `open` opens it.
  std::optional<store> opened;
  /// Opens the store, on the reporter's thread; throws (a store_error
  /// saying why) when it cannot. Called at once when `opened` is empty, and
  /// again after each backoff wait while it fails.
  std::function<store()> open;
  /// The store as the log names it (its path, or soma://HOST:PORT).
  std::string name;
};

/// How a reporter reports, and what it tells of its writes.
struct reporter_options {
  /// Between two readings.
  std::chrono::microseconds every{500000};
  /// Completes each reading (called on the reporter's thread).
  std::function<reported()> counts;
  /// One line each: a write that failed, a store not reached, reached again.
  std::function<void(const std::string&)> log;
  /// Write a reading at once (else its caller wrote one: first after `every`).
  bool first_now = true;
  /// Told of every write that was tried, whether it was written (on the
  /// reporter's thread); a reading dropped because the store could not be
  /// reached goes to `dropped` instead.
  std::function<void(bool written)> wrote;
  /// Told of each reading that was due and not written because the store
  /// could not be reached (store_trouble::unreachable, or not opened yet).
  std::function<void()> dropped;
  /// The waits between tries while the store cannot be reached.
  backoff::limits retry;
};

/// Spawns a reporter: it writes a reading into the store now (unless
/// `first_now` is false) and then every `every`, sampled by `sampler` and
/// completed by `counts()`. busy is measured over each interval.
///
/// While the store cannot be reached (it is not open yet, or a write failed
/// with store_trouble::unreachable) the reporter tries again after each
/// backoff wait (0.1 s doubling to 5 s, jittered; `retry`), with a fresh
/// reading, and logs each failed try (one line, naming the store, the reason,
/// the next wait and the readings dropped so far). Readings due in between
/// are dropped and counted, never queued. Reached again, it logs how many it
/// dropped. Any other failed write is logged once until one succeeds again,
/// and the next tick tries again.
///
/// It stops on an exit message: at once while it waits, else within one try
/// (a served store's is bounded, soma/remote/served_store.hpp).
caf::actor spawn_reporter(caf::actor_system& sys, reporting_to into,
                          std::shared_ptr<machine_sampler> sampler, reporter_options options);

/// The same, into a store open already.
caf::actor spawn_reporter(caf::actor_system& sys, store into, std::chrono::microseconds every,
                          std::shared_ptr<machine_sampler> sampler,
                          std::function<reported()> counts,
                          std::function<void(const std::string&)> log, bool first_now = true,
                          std::function<void(bool written)> wrote = {});

} // namespace soma

SOMA_API_END
