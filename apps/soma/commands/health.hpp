#pragma once

/// @file
/// `soma health`: the opinions of a rulebook about a store (docs/health.md),
/// and `--at TIME` as a command line gives it.

#include <cstdint>
#include <iosfwd>
#include <string>

#include "soma/store/store.hpp"
#include "subcommand.hpp"

namespace soma::cli {

/// Adds `soma health` to the command line.
[[nodiscard]] finish add_health(command_line& line);

/// Prints the opinions (or, with --list, the rules and their settings).
/// Returns exit_ok whatever it finds: an opinion is not an error; with
/// --fail-on firing, exit_firing when one fires. Throws usage_error for a
/// rules file that cannot be used, store_error for the store.
[[nodiscard]] int show_health(const store& s, const invocation& inv, std::ostream& out,
                              std::ostream& err);

/// `--at TIME`: unix seconds (1764625000, 1764625000.5), a UTC time
/// (2026-12-01T21:30:00Z, its Z optional, seconds optional), or a time
/// before now by this machine's clock (-30s, -10m, -2h, -1d). Throws
/// usage_error saying which forms there are.
[[nodiscard]] std::int64_t parse_moment(const std::string& text);

} // namespace soma::cli
