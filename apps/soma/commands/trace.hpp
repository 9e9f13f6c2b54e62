#pragma once

/// @file
/// `soma trace RUN -o FILE`: a run's forwards as a Chrome trace
/// (trace-event JSON) that Perfetto and chrome://tracing open: nodes as
/// spans per host, trips as arrows, recalls as instants.

#include <iosfwd>

#include "soma/store/store.hpp"
#include "subcommand.hpp"

namespace soma::cli {

/// Adds `soma trace` to the command line.
[[nodiscard]] finish add_trace(command_line& line);

/// Writes the trace inv asks for to inv.output and says what it wrote (and
/// on `err`, when the cap cut it, what was left out).
void trace(const store& s, const invocation& inv, std::ostream& out, std::ostream& err);

} // namespace soma::cli
