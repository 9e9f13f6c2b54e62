#pragma once

/// @file
/// The `soma` command line: its subcommands and options, in CLI11, turned
/// into an invocation. Nothing here reads the store.

#include <iosfwd>
#include <optional>

#include "invocation.hpp"

namespace soma::cli {

/// Parses `argv`. Returns nullopt when it printed `--help` or `--version` to
/// `out` (the command is then done, successfully). Throws usage_error naming
/// what was wrong with the command line and where to read how it goes.
[[nodiscard]] std::optional<invocation> parse(int argc, const char* const* argv,
                                              std::ostream& out);

} // namespace soma::cli
