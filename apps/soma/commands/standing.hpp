#pragma once

/// @file
/// `soma standing`: each machine's latest reading, what every worker
/// writing to the store is doing.

#include <iosfwd>
#include <map>
#include <string>

#include "soma/store/standing.hpp"
#include "subcommand.hpp"

namespace soma::cli {

/// Adds `soma standing` to the command line.
[[nodiscard]] finish add_standing(command_line& line);

/// Prints `latest`, the machines' latest readings read from the store (or
/// stores) `where`, as a table (its header even when empty, and then a
/// line on `err` saying how a machine comes to write readings), or rows for
/// a script.
void show_standing(const std::map<std::string, reading>& latest, const std::string& where,
                   const invocation& inv, std::ostream& out, std::ostream& err);

} // namespace soma::cli
