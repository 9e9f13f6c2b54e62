#pragma once

/// @file
/// soma::backoff: how long to wait before trying again something that
/// failed (a served store that cannot be reached yet), so that trying
/// costs little and many machines that failed together do not try again
/// together.

#include <chrono>
#include <cstdint>
#include <random>

#include "soma/export.hpp"

SOMA_API_BEGIN

namespace soma {

/// The numbers of a backoff; soma-node's (docs/fleet.md): 0.1 s doubling to 5 s.
struct backoff_limits {
  std::chrono::milliseconds first{100}; ///< the longest first wait
  std::chrono::milliseconds cap{5000};  ///< the longest wait
};

/// The waits between tries of something that keeps failing: `first`, then
/// twice as long after each failure, never more than `cap`; each wait drawn
/// uniformly between half and all of that (jitter: 200 workers started at
/// once against one store spread their tries out instead of knocking
/// together). A value type; not safe to share between threads without a lock.
class backoff {
public:
  using limits = backoff_limits;

  /// `seed` draws the jitter: by default a fresh one per process.
  explicit backoff(limits l = {}, std::uint64_t seed = std::random_device{}());

  /// One more failure: the wait before the next try.
  [[nodiscard]] std::chrono::milliseconds next();

  /// A try worked: the next failure waits about `first` again.
  void reset() noexcept { failures_ = 0; }

  /// Failures since the last reset().
  [[nodiscard]] unsigned failures() const noexcept { return failures_; }

private:
  limits limits_;
  unsigned failures_ = 0;
  std::mt19937_64 draw_;
};

} // namespace soma

SOMA_API_END
