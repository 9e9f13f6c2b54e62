#pragma once

/// @file
/// A spawned worker's lifeline: soma::worker::spawn gives soma-node its
/// stdin on a pipe whose other end the spawning program holds and never
/// writes, and says so in $SOMA_NODE_LIFELINE (the descriptor, 0). When the
/// pipe reads end of file, the program let the worker go or ended, however
/// it ended (a crash, SIGKILL), and soma-node stops as on SIGTERM, within
/// --stop-within. A soma-node started any other way has no lifeline: its
/// stdin is never read. Nor is a descriptor the variable names that is not
/// a pipe (a launcher in between gave soma-node another stdin).

namespace soma::node_cli {

/// Watches the lifeline named by $SOMA_NODE_LIFELINE, when set (and unsets
/// it, so that nothing soma-node starts inherits it), on a thread of its
/// own that raises lifeline_signal when it closes. Call it once the stop
/// signals are blocked. False, having said why on stderr, when the
/// variable names no descriptor.
[[nodiscard]] bool watch_lifeline();

} // namespace soma::node_cli
