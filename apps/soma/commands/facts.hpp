#pragma once

/// @file
/// `soma facts RUN N`: every fact one forward of a run was told, one a line.

#include <iosfwd>

#include "soma/store/store.hpp"
#include "subcommand.hpp"

namespace soma::cli {

/// Adds `soma facts` to the command line.
[[nodiscard]] finish add_facts(command_line& line);

/// Prints the facts forward inv.forward of inv.run was told: each the JSON
/// line a watcher printed, or rows for a script.
void show_facts(const store& s, const invocation& inv, std::ostream& out);

} // namespace soma::cli
