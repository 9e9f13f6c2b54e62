#pragma once

/// @file
/// `soma compare RUN_A RUN_B`: two runs side by side, node by node (each
/// node's mean and total time, ran, recalled and failed in A and in B, and
/// B - A), as a table, `--json` (one object, soma/web/compare.hpp's, the
/// page's /api/run/A/compare/B) or `--csv`.

#include <iosfwd>

#include "soma/store/store.hpp"
#include "subcommand.hpp"

namespace soma::cli {

/// Adds `soma compare` to the command line.
[[nodiscard]] finish add_compare(command_line& line);

/// Prints inv.run (A) and inv.other (B) compared on `out`. Throws
/// store_error naming a run the store does not have (exit 2), and what
/// soma::nodes throws.
void show_compare(const store& s, const invocation& inv, std::ostream& out);

} // namespace soma::cli
