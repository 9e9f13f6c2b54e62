#pragma once

/// @file
/// `soma cache ls|clear [--node NAME]`: the kept outputs of frozen, cached
/// nodes, listed or forgotten.

#include <iosfwd>

#include "soma/store/store.hpp"
#include "subcommand.hpp"

namespace soma::cli {

/// Adds `soma cache` and its `ls` and `clear` to the command line.
[[nodiscard]] finish add_cache(command_line& line);

/// `soma cache ls`: prints the kept outputs (of node inv.node, when given)
/// as a table, or rows for a script.
void show_cache(const store& s, const invocation& inv, std::ostream& out);

/// `soma cache clear`: forgets the kept outputs (of node inv.node, when
/// given) and says how many on `out`, and on `err` when there were none.
/// Writes, but only to a store that is there: throws store_error for one
/// that is not, and creates none.
void clear_cache(const invocation& inv, std::ostream& out, std::ostream& err);

} // namespace soma::cli
