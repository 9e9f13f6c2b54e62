#pragma once

/// @file
/// `soma forwards RUN`: every forward of a run, step by step, with a column
/// for each field its recorder summarised.

#include <iosfwd>

#include "soma/store/store.hpp"
#include "subcommand.hpp"

namespace soma::cli {

/// Adds `soma forwards` to the command line.
[[nodiscard]] finish add_forwards(command_line& line);

/// Prints the forwards of inv.run that `inv` asks for (--first N, --last N)
/// as a table, or rows for a script.
void show_forwards(const store& s, const invocation& inv, std::ostream& out);

} // namespace soma::cli
