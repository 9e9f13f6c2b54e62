#pragma once

/// @file
/// soma::standing: each machine's latest reading, the fleet as it last said
/// it was (`soma standing`), and how quiet each machine is beside the others.
/// The readings themselves are soma/store/readings.hpp's.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "soma/reading.hpp"
#include "soma/store/store.hpp"

namespace soma {

/// Each machine's latest reading, keyed by its id. One scan of the latest
/// readings (one entry per machine). Throws store_error for damaged bytes.
[[nodiscard]] std::map<std::string, reading> standing(const store& s);

/// The standing of several stores merged: a fleet whose machines report into
/// more than one store, each serving a share of its hosts (docs/scale.md).
/// A machine in more than one keeps its newest reading. Costs what standing
/// costs in each.
[[nodiscard]] std::map<std::string, reading> standing(const std::vector<store>& stores);

/// How quiet each machine of a standing is: seconds from its latest reading
/// to the newest reading of any machine. Writer against writer, never
/// against the reader's clock: two machines' clocks drift, and comparing a
/// writer with another cancels it; a fleet where every writer stopped shows
/// nothing quiet.
class quietness {
public:
  explicit quietness(const std::map<std::string, reading>& standing);

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

private:
  std::int64_t newest_ = 0;
};

} // namespace soma
