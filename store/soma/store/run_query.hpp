#pragma once

/// @file
/// Finding runs: which of a store's runs a person asked for, and in what
/// order (`soma runs PREFIX --status --tag --param --sort --reverse`, and
/// the runs page's filters). One set of rules for both.

#include <string>
#include <vector>

#include <caf/expected.hpp>

#include "soma/error.hpp"
#include "soma/store/readers.hpp"

namespace soma {

/// Which runs, in what order.
struct run_query {
  std::string prefix;                ///< only runs whose id starts so
  std::vector<std::string> statuses; ///< only runs that stand as one of these (to_string(run_status))
  std::vector<std::string> tags;     ///< only runs with every one of these tags
  /// Only runs with every one of these params: "NAME=VALUE" (the same text
  /// as soma::text(value) writes, or the same number: lr=5e-2 finds 0.05),
  /// "NAME!=VALUE", "NAME<VALUE", "NAME<=VALUE", "NAME>VALUE", "NAME>=VALUE"
  /// (numbers only: a run whose parameter is a text passes none), or "NAME"
  /// (any value). A run without the parameter passes none of them.
  std::vector<std::string> params;
  /// "first" (when it began), "last", "run", "status", "forwards", "broke",
  /// "took", or a parameter's name (runs without it last); then by id.
  std::string sort = "first";
  bool reverse = false;
};

/// Nothing when `q` as given by a person can be asked; else an
/// error_code::invalid error whose describe() names what is wrong (an
/// unknown status, a --param with no name) and what it takes. Sort keys are
/// checked by select_runs, which knows the params there are.
[[nodiscard]] caf::expected<void> check_query(const run_query& q);

/// The rows of `rows` that `q` asks for, in its order. Throws
/// std::invalid_argument for a sort key that is neither a column nor a
/// parameter of any run kept, saying which keys there are.
[[nodiscard]] std::vector<run_row> select_runs(std::vector<run_row> rows, const run_query& q);

} // namespace soma
