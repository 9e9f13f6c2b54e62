#pragma once

/// @file
/// soma::reading: one reading a machine takes of itself (docs/fleet.md).

#include <cstdint>
#include <string>
#include <vector>

#include "soma/export.hpp"

SOMA_API_BEGIN

namespace soma {

/// One reading of one machine.
struct reading {
  std::string id;           ///< hostname-pid
  double busy = 0;          ///< the machine's CPU busy fraction over the last interval
  double memory = 0;        ///< fraction of the machine's memory in use
  std::uint32_t cores = 0;
  std::int64_t up_us = 0;   ///< since the worker started
  std::uint64_t served = 0; ///< slices served so far
  std::int64_t when_us = 0; ///< the writer's wall clock, unix microseconds
  std::uint64_t trials = 0; ///< trials a claimant finished so far (done or broke); 0 for a worker
  std::string claims;       ///< the study a claimant claims from; empty for a worker
  std::int64_t every_us = 0; ///< the writer's reporting interval; 0: it did not say (older writers)
  /// host:port a worker listens at (what `soma::worker::connect` is given);
  /// empty for a writer that listens nowhere, or an older one.
  std::string listens;
  std::vector<std::string> serves; ///< the node types a worker serves, in its libraries' order
  std::string serves_store;        ///< the store directory a worker serves (--serve-store), or empty
};

} // namespace soma

SOMA_API_END
