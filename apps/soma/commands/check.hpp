#pragma once

/// @file
/// `soma check`: walks the whole store and lists every damaged entry.

#include <iosfwd>

#include "soma/store/store.hpp"
#include "subcommand.hpp"

namespace soma::cli {

/// Adds `soma check` to the command line.
[[nodiscard]] finish add_check(command_line& line);

/// Prints every damaged entry, one a row (or rows for a script), then on
/// `err` what was checked. Returns exit_damaged when it found damage, else
/// exit_ok. Damage found while opening (a cut-off file) is a store_error
/// like any reader's.
[[nodiscard]] int show_check(const store& s, const invocation& inv, std::ostream& out,
                             std::ostream& err);

} // namespace soma::cli
