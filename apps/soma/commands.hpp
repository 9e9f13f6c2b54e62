#pragma once

/// @file
/// Carrying out a `soma` invocation: open the store read-only and hand it to
/// the subcommand's file (commands/), which asks its reader and prints the
/// rows as a table, JSON or CSV; the commands that write or copy open the
/// store themselves.

#include <iosfwd>

#include "invocation.hpp"

namespace soma::cli {

/// Answers `inv` on `out`; notes for a human (a curve nobody told) go to
/// `err`. Never creates or modifies the store. Throws soma::store_error for
/// a missing store, an unknown run or forward and a damaged record or blob.
/// Returns the exit status: exit_ok, or exit_damaged when `soma check`
/// found damage.
[[nodiscard]] int run(const invocation& inv, std::ostream& out, std::ostream& err);

} // namespace soma::cli
