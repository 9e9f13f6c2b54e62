#pragma once

/// @file
/// The private directory soma-node keeps shipped node libraries in
/// (--accept-code, soma::mode::network).

#include <optional>
#include <string>

namespace soma::node_cli {

/// Makes a fresh directory in the system's temporary directory that only
/// this user can enter, so nobody else can put or swap a file there before
/// it is loaded. Returns its path, or nullopt once stderr said it could not
/// (exit_cannot).
[[nodiscard]] std::optional<std::string> make_code_directory();

/// Removes `dir` and everything in it; quiet when it is gone already. Safe
/// from any thread (the stop deadline's too).
void remove_code_directory(const std::string& dir);

} // namespace soma::node_cli
