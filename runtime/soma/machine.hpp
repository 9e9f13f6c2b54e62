#pragma once

/// @file
/// soma::machine_sampler: what a worker can say about the machine it runs on
/// and nobody at the other end of a wire can work out.

#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>

#include "soma/export.hpp"
#include "soma/fact.hpp"
#include "soma/store/readings.hpp"

SOMA_API_BEGIN

namespace soma {

/// The `machine` fact of reading `r`: id, busy, memory, cores, up_us, served
/// (a client adds `host` when it came down a wire). when_us stays out: it is
/// the writer's clock, for the store.
[[nodiscard]] fact machine_fact(const reading& r);

/// Takes readings of this process's machine. busy is measured between two
/// readings, so the first says the busy fraction since the machine booted.
/// Thread-safe.
class machine_sampler {
public:
  machine_sampler();

  /// A reading now (when_us: this machine's wall clock), with `served` as given.
  reading read(std::uint64_t served);

  /// This machine's id in its readings: hostname-pid.
  [[nodiscard]] const std::string& id() const noexcept { return id_; }

private:
  std::mutex lock_;
  std::string id_;
  std::chrono::steady_clock::time_point started_;
  unsigned long long last_busy_ = 0;
  unsigned long long last_total_ = 0;
};

} // namespace soma

SOMA_API_END
