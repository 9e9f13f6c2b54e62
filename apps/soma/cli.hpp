#pragma once

/// @file
/// The `soma` command line: its subcommands and options, in CLI11, turned
/// into an invocation. Nothing here reads the store.
///
/// How the command is put together: one file per subcommand, in commands/.
/// `commands/NAME.cpp` holds both halves of `soma NAME`: add_NAME(), which
/// adds the subcommand, its options and its help to the command line and
/// returns what reads and checks them once it parsed (a `finish`,
/// subcommand.hpp), and the function that carries it out (show_NAME for a
/// reader; a verb for what writes: delete_runs, clear_cache, ...), both
/// declared in `commands/NAME.hpp`. A command of commands is one file
/// (`cache ls|clear`, the figures of `plot`). parse() below only makes
/// `soma` itself, adds the subcommands in the order `soma --help` lists
/// them, parses, checks what every command shares (--store, --json and
/// --csv) and lets the subcommand given finish; commands.cpp opens the store
/// and calls the one asked for. What several subcommands share lives in
/// files named after it: subcommand.hpp (the options all take, --first and
/// --last, the help hint), output.hpp (--json and --csv), table.hpp,
/// count.hpp, stop_signals.hpp, several_stores.hpp
/// (--store A,B), and live_view.hpp for `soma live`'s view; the store is
/// opened by soma/web/opened_store.hpp, which the Python module shares.

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
