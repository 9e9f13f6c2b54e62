#pragma once

/// @file
/// soma-node's run: the modes its options ask for (serving slices always,
/// and --serve-store, --store reporting, --claim, --metrics), started in
/// order and stopped, on a signal, within --stop-within.

#include "options.hpp"

namespace soma::node_cli {

/// Serves as `opt` says until SIGTERM or SIGINT, its lifeline closing
/// (lifeline.hpp), or with --claim until the claims end, and prints the port it listens on as stdout's first line;
/// says on stderr why it cannot. Returns the exit status (options.hpp). A
/// stop that outlives --stop-within ends the process from the stop
/// deadline's thread instead, with exit_cut_short (or exit_ok when only
/// CAF's own teardown was left).
[[nodiscard]] int run(const options& opt);

} // namespace soma::node_cli
