#pragma once

/// @file
/// A worker this process starts (worker::spawn): its process, how it ended,
/// whether it is stopped, and the port it prints.

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "soma/export.hpp"

namespace soma::detail {

/// Starts `command` (a name without a slash is looked up in PATH) with its
/// stdout on a pipe; returns (pid, read end). Throws worker_error.
[[nodiscard]] std::pair<pid_t, int> start_child(const std::vector<std::string>& command);

/// Reads the port a worker prints as its first line on `fd`, within
/// `within`. Throws worker_error (and stops the child) when it prints none.
[[nodiscard]] std::uint16_t first_line_port(pid_t pid, int fd, const std::string& program,
                                            std::chrono::milliseconds within);

/// How a child process ended, as "was killed by signal 9".
[[nodiscard]] std::string exit_text(int status);

/// Whether process `pid` is stopped (SIGSTOP, a debugger).
[[nodiscard]] SOMA_API_EXPORT bool stopped(pid_t pid);

} // namespace soma::detail
