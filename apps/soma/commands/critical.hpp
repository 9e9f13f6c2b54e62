#pragma once

/// @file
/// `soma critical RUN [--last N]`: where a run's forwards spent their time
/// across machines: each worker's clock offset, the share of each segment
/// (work, wire, queue, recall, wait) per host on the critical paths, the
/// nodes most often on them, and what the slowest remote node would have
/// cost here (docs/critical.md).

#include <iosfwd>

#include "soma/store/store.hpp"
#include "subcommand.hpp"

namespace soma::cli {

/// Adds `soma critical` to the command line.
[[nodiscard]] finish add_critical(command_line& line);

/// Prints where inv.run's last inv.last forwards (100 by default) spent
/// their time, as tables or, with --json, one object.
void show_critical(const store& s, const invocation& inv, std::ostream& out);

} // namespace soma::cli
