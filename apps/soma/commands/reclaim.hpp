#pragma once

/// @file
/// `soma reclaim STUDY --quiet-over S`: hands back the trials of a study
/// whose claimants' readings are more than S seconds behind the newest
/// writer's (docs/trials.md). It writes; the attempts stay in the record.

#include <iosfwd>

#include "subcommand.hpp"

namespace soma::cli {

/// Adds `soma reclaim` to the command line.
[[nodiscard]] finish add_reclaim(command_line& line);

/// Hands the trials back, names each on `out` (or rows for a script) and
/// says how many on `err`. Writes only to a store that is there: throws
/// store_error for one that is not, and creates none.
void reclaim_trials(const invocation& inv, std::ostream& out, std::ostream& err);

} // namespace soma::cli
