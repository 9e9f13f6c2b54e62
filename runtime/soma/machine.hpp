#pragma once

/// @file
/// soma::machine_reading: what a worker can say about the machine it runs on
/// and nobody at the other end of a wire can work out.

#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>

#include "soma/fact.hpp"

namespace soma {

/// One reading of a worker and its machine.
struct machine_reading {
  std::string id;          ///< hostname-pid: what the machine calls itself
  double busy = 0;         ///< the machine's CPU busy fraction since the last reading (/proc/stat)
  double memory = 0;       ///< fraction of the machine's memory in use (/proc/meminfo)
  unsigned cores = 0;      ///< online CPUs
  std::int64_t up_us = 0;  ///< microseconds since the worker started
  std::uint64_t served = 0; ///< slices served so far

  /// The `machine` fact: id, busy, memory, cores, up_us, served (a client
  /// adds `host` when it came down a wire).
  [[nodiscard]] fact to_fact() const;
};

/// Takes readings of this process's machine. busy is measured between two
/// readings, so the first says the busy fraction since the machine booted.
/// Thread-safe.
class machine_sampler {
public:
  machine_sampler();

  /// A reading now, with `served` as given.
  machine_reading read(std::uint64_t served);

private:
  std::mutex lock_;
  std::string id_;
  std::chrono::steady_clock::time_point started_;
  unsigned long long last_busy_ = 0;
  unsigned long long last_total_ = 0;
};

} // namespace soma
