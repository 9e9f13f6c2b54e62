#pragma once

/// @file
/// `soma fleet RUN [--all-machines]`: one row per machine of a run: work
/// done there, time waiting on the wire, its latest reading.

#include <iosfwd>
#include <vector>

#include "soma/store/fleet.hpp"
#include "subcommand.hpp"

namespace soma::cli {

/// Adds `soma fleet` to the command line.
[[nodiscard]] finish add_fleet(command_line& line);

/// Prints `rows`, a run's fleet, as a table or rows for a script.
void show_fleet(const std::vector<fleet_row>& rows, const invocation& inv, std::ostream& out);

} // namespace soma::cli
