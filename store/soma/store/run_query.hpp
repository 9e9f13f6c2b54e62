#pragma once

/// @file
/// Finding runs: which of a store's runs a person asked for, and in what
/// order (`soma runs PREFIX --status --tag --param --where --sort --reverse`, and
/// the runs page's filters). One set of rules for both.

#include <string>
#include <vector>

#include <caf/expected.hpp>

#include "soma/error.hpp"
#include "soma/export.hpp"
#include "soma/store/readers.hpp"

SOMA_API_BEGIN

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
  /// Only runs whose summarised values (run_row::values) hold every one of
  /// these: "KEY OP NUMBER", OP one of < <= > >= = !=, KEY a value's name
  /// (value_named: "loss" is its last), "min:NAME" or "max:NAME" (its
  /// least, its greatest). A run without the value passes none of them.
  std::vector<std::string> where;
  /// "first" (when it began), "last", "run", "status", "forwards", "broke",
  /// "duration", "took", a summarised value's KEY as `where` takes it ("loss",
  /// "min:loss"), or a parameter's name (runs without it last); then by id.
  std::string sort = "first";
  bool reverse = false;
};

/// The summarised value of `r` named `name`: its key ("loss.value"), or
/// the fact's name when the key is NAME.value ("loss"); null when none.
[[nodiscard]] const value_range* value_named(const run_row& r, std::string_view name);

/// What a value is called in tables and --json: its key, without ".value"
/// ("loss.value" is "loss", "acc.top1" stays so).
[[nodiscard]] std::string value_name(const value_range& v);

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

SOMA_API_END
