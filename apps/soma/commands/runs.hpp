#pragma once

/// @file
/// `soma runs [PREFIX]`: every run in the store, summed up, filtered and
/// ordered as its options say.

#include <iosfwd>

#include "soma/store/store.hpp"
#include "subcommand.hpp"

namespace soma::cli {

/// Adds `soma runs` to the command line.
[[nodiscard]] finish add_runs(command_line& line);

/// Prints the runs `inv` asks for: a table, with a trial column when any run
/// was recorded for a trial, or rows for a script. Throws usage_error for a
/// --sort key that is neither a column nor a parameter of any run.
void show_runs(const store& s, const invocation& inv, std::ostream& out, std::ostream& err);

} // namespace soma::cli
