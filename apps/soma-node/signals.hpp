#pragma once

/// @file
/// The signals that stop soma-node: SIGTERM and SIGINT from outside,
/// SIGUSR1 from its own claims once they end (--claim), and SIGUSR2 from its
/// lifeline once it closes (lifeline.hpp). They are blocked in every thread
/// and taken by one wait, so that no handler runs on a thread CAF started.

#include <csignal>
#include <string>

namespace soma::node_cli {

/// The stop signals, blocked from construction on. A value type.
class stop_signals {
public:
  /// Blocks them for the calling thread, and so for every thread it starts
  /// from now on (they inherit its mask): make it before the actor system.
  stop_signals();

  /// Waits for one of them; returns which.
  [[nodiscard]] int wait() const;

private:
  sigset_t set_;
};

/// Tells the thread in stop_signals::wait() that the claims ended (a
/// SIGUSR1 to this process). Safe from any thread.
void claims_ended();

/// Tells the thread in stop_signals::wait() that the lifeline closed (a
/// SIGUSR2 to this process). Safe from any thread.
void lifeline_closed();

/// Why the worker stops, as its log says it: "SIGTERM", "SIGINT", "the
/// program that spawned it is gone" for its lifeline, or, for the claims'
/// own signal, "no trial to claim" when they ended well (`claim_status` 0)
/// and "the claims ended" when they did not.
[[nodiscard]] std::string stop_reason(int signal, int claim_status);

} // namespace soma::node_cli
