#pragma once

/// @file
/// `soma live RUN`: a view of a run in the terminal (live_view.hpp), redrawn
/// in place as another process records: the terminal in raw mode, a frame
/// on every interval and on a resize, q or Ctrl-C to quit, and the terminal
/// as it was after.

#include <iosfwd>

#include "soma/store/store.hpp"
#include "subcommand.hpp"

namespace soma::cli {

/// Adds `soma live` to the command line.
[[nodiscard]] finish add_live(command_line& line);

/// `soma live`: redraws the view of inv.run every inv.interval_ms, and at
/// once at a new size when the terminal is resized (SIGWINCH), until q or
/// Ctrl-C (or prints one frame with --once), restoring the terminal as it
/// found it. Reads only.
void watch(const store& s, const invocation& inv, std::ostream& out);

/// For `soma live` on a directory that holds no store yet: says so on `err`
/// and waits, looking every inv.interval_ms, until a recorder has made one
/// there (as `tensorboard --logdir` waits for its logs), never creating
/// anything itself. Returns false when a signal (Ctrl-C, SIGTERM, SIGHUP)
/// ended the wait first. Returns at once for a store that exists, a served
/// one (soma://) and `--once`. Having waited, it sets inv.wait: the run the
/// recorder writes comes a moment after the store.
[[nodiscard]] bool wait_for_store(invocation& inv, std::ostream& err);

} // namespace soma::cli
