#pragma once

/// @file
/// soma::serve::counters: what a worker has done since it started, as
/// `soma-node --metrics` exposes it (docs/remote.md, "Metrics").

#include <atomic>
#include <chrono>
#include <cstdint>

#include "soma/export.hpp"

SOMA_API_BEGIN

namespace soma::serve {

/// A worker's tallies (only ever rise) and gauges (what is so now). Each
/// member is an atomic: any thread may count or read without a lock, so
/// actors count from their own state and a scraper reads from its own
/// thread. Each read is exact; two reads are not one snapshot (a scrape may
/// see a slice counted whose session it does not see opened yet).
struct counters {
  /// When the worker began: its up time is counted from here.
  const std::chrono::steady_clock::time_point began = std::chrono::steady_clock::now();

  std::atomic<std::uint64_t> sessions_opened{0}; ///< sessions opened, of slices and of the served store
  std::atomic<int> sessions_open{0};             ///< of them, open now

  /// Slices answered, counted once answered so that it only ever rises (a
  /// scraper takes a fall for a restart). One refused for lack of code
  /// (mode network: the client ships it and sends the slice again) is not
  /// one, as in the readings' `served`.
  std::atomic<std::uint64_t> slices_served{0};
  std::atomic<std::uint64_t> slices_failed{0};  ///< of them, a node threw
  std::atomic<std::uint64_t> slices_refused{0}; ///< of them, not run: undecodable, unknown node, other code
  std::atomic<int> slices_running{0};           ///< running now

  std::atomic<std::uint64_t> readings_written{0}; ///< readings of itself written (--store)
  std::atomic<std::uint64_t> reading_failures{0}; ///< writes of a reading that failed
  /// Readings not written because the store could not be reached (a served
  /// store not reached yet, or lost): dropped, never queued.
  std::atomic<std::uint64_t> readings_dropped{0};
  std::atomic<std::uint64_t> store_ops{0};        ///< operations asked of the store it serves (--serve-store)

  /// Counts one reading's write: written, or failed.
  void reading(bool written) noexcept { ++(written ? readings_written : reading_failures); }
};

} // namespace soma::serve

SOMA_API_END
