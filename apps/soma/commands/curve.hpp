#pragma once

/// @file
/// `soma curve RUN NAME`: the series of a fact over a run, with what
/// reading it cost.

#include <iosfwd>

#include "soma/store/store.hpp"
#include "subcommand.hpp"

namespace soma::cli {

/// Adds `soma curve` to the command line.
[[nodiscard]] finish add_curve(command_line& line);

/// Prints inv.name over inv.run: the cost it took, then a table, or rows
/// for a script. Throws usage_error when no forward told it, naming the
/// series the run's first forward did tell.
void show_curve(const store& s, const invocation& inv, std::ostream& out);

} // namespace soma::cli
