#pragma once

/// @file
/// `soma delete RUN... [--yes] [--force]`: deletes runs from the store for
/// good: their records, facts and metadata.

#include <iosfwd>

#include "subcommand.hpp"

namespace soma::cli {

/// Adds `soma delete` to the command line.
[[nodiscard]] finish add_delete(command_line& line);

/// Checks every run of inv.runs first (each there; none still recorded,
/// unless --force), asks once on `err` unless --yes, then deletes them one
/// transaction each and says so on `err`. Asking needs a terminal: without
/// one, and without --yes, it deletes nothing and throws usage_error saying
/// so. Throws store_error for a store or a run that is not there.
void delete_runs(const invocation& inv, std::ostream& err);

} // namespace soma::cli
