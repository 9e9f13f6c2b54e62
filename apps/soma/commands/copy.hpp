#pragma once

/// @file
/// `soma copy FROM DIR`: a compacted copy of a whole store (a directory or
/// soma://HOST:PORT) in a new directory: a backup, or a served store
/// brought here whole.

#include <iosfwd>

#include "subcommand.hpp"

namespace soma::cli {

/// Adds `soma copy` to the command line.
[[nodiscard]] finish add_copy(command_line& line);

/// Copies inv.from into inv.into and says on `err` how many bytes it wrote
/// and how long it took. Throws store_error for a store that cannot be
/// opened or a directory the copy cannot go to.
void copy_store(const invocation& inv, std::ostream& err);

} // namespace soma::cli
