#pragma once

/// @file
/// soma::health::judge: a rulebook's opinions of a store, as of now or of
/// any past moment. Computed on read and never written back: judging the
/// same store twice says the same, and judging it changes nothing in it.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "soma/export.hpp"
#include "soma/health/rulebook.hpp"
#include "soma/store/store.hpp"

SOMA_API_BEGIN

namespace soma::health {

struct judge_options {
  /// Judge as of this moment (unix microseconds): only readings and
  /// forwards written at or before it count, and trials as they were held
  /// then. None: as of the newest write in the store.
  std::optional<std::int64_t> at_us;
  /// Only opinions about this run (its forwards, nodes, hosts and the trial
  /// recorded into it); a no_run_error when the store has no such run.
  std::optional<std::string> run;
};

/// What a judgement found, and of what.
struct judgement {
  std::vector<opinion> opinions; ///< firing first, then pending; in rule order within each
  std::int64_t now_us = 0;       ///< the moment judged (evidence::now_us)
  std::size_t machines = 0, runs = 0, trials = 0; ///< what it looked at
};

/// Reads what the enabled rules need in a few read transactions (each
/// machine's readings back as far as a rule asks, each run's last forwards,
/// every study's trials) and lets each rule judge. Throws store_error for a
/// store that cannot be read or is damaged.
[[nodiscard]] judgement judge(const store& s, const rulebook& rules, const judge_options& o = {});

} // namespace soma::health

SOMA_API_END
