#pragma once

/// @file
/// `soma trials [STUDY]`: the studies in the store, or each trial of one:
/// parameters, state, claimant and its quiet_s, run, result.

#include <iosfwd>

#include "soma/store/store.hpp"
#include "subcommand.hpp"

namespace soma::cli {

/// Adds `soma trials` to the command line.
[[nodiscard]] finish add_trials(command_line& line);

/// Prints the studies (without inv.study; and a line on `err` when there is
/// none) or the trials of inv.study, one row per attempt, as a table or
/// rows for a script.
void show_trials(const store& s, const invocation& inv, std::ostream& out, std::ostream& err);

} // namespace soma::cli
