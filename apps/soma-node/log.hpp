#pragma once

/// @file
/// soma-node's log: a line on stderr for each thing it did, stamped.

#include <string>

namespace soma::node_cli {

/// Writes one line of the log to stderr and flushes it: when (UTC, ISO
/// 8601, milliseconds), who (soma-node[pid]), what. Safe from any thread:
/// a line is one fprintf.
void say(const std::string& line);

} // namespace soma::node_cli
