#pragma once

/// \file
/// SIGINT, SIGTERM and SIGHUP, caught for the rest of the process by the
/// commands that run until stopped (`soma live`, `soma serve`).
///
/// Caught once and never put back: a stop is often signalled twice (timeout(1)
/// signals its command and then its process group; a terminal's Ctrl-C goes to
/// a whole pipeline), and a second signal that met the default handler while
/// the command wound down would kill it (exit 130 or 143 instead of 0).

namespace soma::cli {

/// Catches the stop signals from now on; idempotent. Call it before saying
/// anything that invites a signal (a "Ctrl-C stops" line, a URL).
void catch_stop_signals();

/// The first stop signal caught, or 0.
[[nodiscard]] int stop_signal() noexcept;

/// A descriptor that becomes readable once a stop signal was caught, to
/// poll(2) beside what a command waits on; -1 before catch_stop_signals().
[[nodiscard]] int stop_fd() noexcept;

} // namespace soma::cli
