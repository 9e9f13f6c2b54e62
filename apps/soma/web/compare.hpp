#pragma once

/// @file
/// Two runs side by side, node by node (`soma compare RUN_A RUN_B`, the
/// page's /run/A/compare/B and /api/run/A/compare/B): per node, its time
/// (mean and total took_us), ran, recalled and failed in each run, and the
/// difference B - A. Made from soma::nodes (soma/store/readers.hpp) of each
/// run, so its numbers are those `soma nodes` shows.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "soma/store/readers.hpp"
#include "soma/store/store.hpp"
#include "soma/web/json.hpp"

namespace soma::web {

/// One node in both runs: its row in each (nullopt when that run has no
/// such node).
struct node_compared {
  std::string node;
  std::optional<node_row> a, b;
};

/// Two runs' nodes side by side.
struct runs_compared {
  std::string a, b;
  /// Every node of A, in its order, then those only B has, in B's.
  std::vector<node_compared> nodes;
  /// What each run was (run_row::params).
  values a_params, b_params;
};

/// Reads both runs' nodes (every forward of each: a fetch per forward) and
/// their params (a read of each run's metadata).
/// Throws store_error (missing) naming a run the store does not have, and
/// what soma::nodes throws.
[[nodiscard]] runs_compared compare_runs(const store& s, std::string_view a, std::string_view b);

/// {"a": RUN_A, "b": RUN_B, "params": [{"param", "a", "b"}] (each parameter
/// either run has, A's in order then B's, its value in each run or null),
/// "nodes": [{"node", "a": {"ran",
/// "recalled", "failed", "took_us", "mean_us"} or null, "b": the same or
/// null, "difference": B - A of each, a missing side counting 0}]}.
[[nodiscard]] json json_of(const runs_compared& x);

} // namespace soma::web
