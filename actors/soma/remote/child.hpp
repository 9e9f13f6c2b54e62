#pragma once

/// @file
/// A worker this process starts (worker::spawn): its process, how it ended,
/// whether it is stopped, and the port it prints.

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "soma/export.hpp"

namespace soma::detail {

/// The name of the variable that tells soma-node which of its descriptors
/// is its lifeline: it stops when that reads end of file.
inline constexpr const char* lifeline_variable = "SOMA_NODE_LIFELINE";

/// A child start_child started.
struct started_child {
  pid_t pid = -1;
  int stdout_fd = -1; ///< the read end of its stdout
  /// The write end of its stdin, which this process keeps open and never
  /// writes: when it closes (this process let it go, or ended however it
  /// ended), the child reads end of file and stops (soma-node, told by
  /// $SOMA_NODE_LIFELINE).
  int lifeline = -1;
};

/// Starts `command` (a name without a slash is looked up in PATH) with its
/// stdout on a pipe and its stdin on its lifeline. Throws worker_error.
[[nodiscard]] started_child start_child(const std::vector<std::string>& command);

/// Reads the port a worker prints as its first line on `fd`, within
/// `within`. Throws worker_error (and stops the child) when it prints none.
[[nodiscard]] std::uint16_t first_line_port(pid_t pid, int fd, const std::string& program,
                                            std::chrono::milliseconds within);

/// How a child process ended, as "was killed by signal 9".
[[nodiscard]] std::string exit_text(int status);

/// Whether process `pid` is stopped (SIGSTOP, a debugger).
[[nodiscard]] SOMA_API_EXPORT bool stopped(pid_t pid);

} // namespace soma::detail
