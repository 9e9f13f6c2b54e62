#pragma once

/// @file
/// soma::standing: each machine's latest reading, the fleet as it last said
/// it was (`soma standing`), and how quiet each machine is beside the others.
/// The readings themselves are soma/store/readings.hpp's.

#include <cstdint>
#include <iosfwd>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "soma/export.hpp"
#include "soma/reading.hpp"
#include "soma/store/store.hpp"

SOMA_API_BEGIN

namespace soma {

/// Each machine's latest reading, keyed by its id. One scan of the latest
/// readings (one entry per machine). Throws store_error for damaged bytes.
[[nodiscard]] std::map<std::string, reading> standing(const store& s);

/// The standing of several stores merged: a fleet whose machines report into
/// more than one store, each serving a share of its hosts (docs/scale.md).
/// A machine in more than one keeps its newest reading. Costs what standing
/// costs in each.
[[nodiscard]] std::map<std::string, reading> standing(const std::vector<store>& stores);

/// Whether a machine still reports: an opinion, at the threshold below,
/// not a fact a machine said.
enum class machine_state {
  reporting, ///< its latest reading is within quiet_after_intervals of its interval
  quiet,     ///< it is further behind: stopped, killed, or cut off
};

/// "reporting" or "quiet".
[[nodiscard]] const char* to_string(machine_state s) noexcept;

/// Writes to_string(s).
std::ostream& operator<<(std::ostream& out, machine_state s);

/// How many of its own reporting intervals a machine's latest reading may be
/// behind before it is quiet.
inline constexpr std::int64_t quiet_after_intervals = 3;

/// The interval a machine is judged by when its readings do not say theirs
/// (a soma before reading::every_us): soma-node's default, 0.5 s.
inline constexpr std::int64_t unsaid_interval_us = 500'000;

/// How far the reader's clock may run ahead of the writers' before a fleet
/// that still reports looks silent by it.
inline constexpr std::int64_t reader_clock_drift_us = 1'000'000;

/// The reporting interval `r` is judged by: its own, at most a day (a
/// writer's number is not trusted further), or unsaid_interval_us.
[[nodiscard]] std::int64_t judged_interval_us(const reading& r) noexcept;

/// How quiet each machine of a standing is: seconds from its latest reading
/// to the newest reading of any machine. Writer against writer, never
/// against the reader's clock: two machines' clocks drift, and comparing a
/// writer with another cancels it; a fleet where every writer stopped shows
/// nothing quiet in quiet_s. Its state (state_of) is the opinion: a machine
/// is quiet when its latest reading is more than quiet_after_intervals of
/// its reporting intervals behind the newest reading of any machine, or,
/// when every machine has been silent that long (and reader_clock_drift_us
/// more), behind the reader's clock (`now_us`), so a fleet that stopped
/// looks stopped.
class quietness {
public:
  /// `now_us`: the reader's clock, unix microseconds; none: judge writer
  /// against writer only.
  explicit quietness(const std::map<std::string, reading>& standing,
                     std::optional<std::int64_t> now_us = std::nullopt);

  /// Seconds `r` is behind the newest reading.
  [[nodiscard]] double of(const reading& r) const noexcept {
    return static_cast<double>(newest_ - r.when_us) / 1e6;
  }

  /// The quiet_s of machine `id` of `standing` (the one this was made of);
  /// none when it has no reading there.
  [[nodiscard]] std::optional<double> of(const std::map<std::string, reading>& standing,
                                         const std::string& id) const {
    auto at = standing.find(id);
    if (at == standing.end())
      return std::nullopt;
    return of(at->second);
  }

  /// Whether `r` still reports, as the class says.
  [[nodiscard]] machine_state state_of(const reading& r) const noexcept;

  /// The state of machine `id` of `standing`; none when it has no reading.
  [[nodiscard]] std::optional<machine_state> state_of(
    const std::map<std::string, reading>& standing, const std::string& id) const {
    auto at = standing.find(id);
    if (at == standing.end())
      return std::nullopt;
    return state_of(at->second);
  }

private:
  std::int64_t newest_ = 0;
  std::optional<std::int64_t> now_us_;
};

/// The reader's clock, unix microseconds: what quietness judges a silent
/// store against.
[[nodiscard]] std::int64_t reader_now_us() noexcept;

} // namespace soma

SOMA_API_END
