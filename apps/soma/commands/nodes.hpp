#pragma once

/// @file
/// `soma nodes RUN [--last N]`: each node's time over a run, added up.

#include <iosfwd>

#include "soma/store/store.hpp"
#include "subcommand.hpp"

namespace soma::cli {

/// Adds `soma nodes` to the command line.
[[nodiscard]] finish add_nodes(command_line& line);

/// Prints each node's counts and times over inv.run (its last inv.last
/// forwards, when given) as a table, or rows for a script.
void show_nodes(const store& s, const invocation& inv, std::ostream& out);

} // namespace soma::cli
