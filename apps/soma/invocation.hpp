#pragma once

/// @file
/// What one `soma` command line asks for, as plain values: cli.cpp fills it
/// from argv, commands.cpp carries it out, so the reading never sees CLI11.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace soma::cli {

/// The subcommands: one per reader of soma/store/readers.hpp, and the cache's.
enum class command { runs, forwards, curve, facts, nodes, cache_ls, cache_clear };

/// A parsed, checked command line.
struct invocation {
  command what = command::runs;
  std::string store;              ///< --store DIR (default: soma::store::default_path())
  bool json = false;              ///< --json: one JSON array instead of a table
  std::string run;                ///< RUN, for all but `runs`
  std::string name;               ///< NAME, for `curve`
  std::uint64_t forward = 0;      ///< N, for `facts`
  std::optional<std::size_t> last; ///< --last N, for `nodes`
  std::optional<std::string> node; ///< --node NAME, for `cache ls|clear`
};

} // namespace soma::cli
