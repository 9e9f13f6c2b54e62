#pragma once

/// @file
/// The `soma` command's errors and exit codes, the contract scripts rely on
/// (docs/cli.md): 0 when it answered, 2 when the command line or the store
/// was wrong, 4 when a served store was unavailable (try again), 1 for
/// anything else (a bug to report).

#include <stdexcept>

namespace soma::cli {

/// It answered.
inline constexpr int exit_ok = 0;
/// Something unforeseen went wrong: a bug in soma, never the user's input.
inline constexpr int exit_failure = 1;
/// Bad usage, a missing store, an unknown run or forward, a damaged record.
inline constexpr int exit_usage = 2;
/// `soma check` found damage.
inline constexpr int exit_damaged = 2;
/// `soma health --fail-on firing` found an opinion firing (a script's
/// choice: an opinion is not an error, and without the flag it exits 0).
inline constexpr int exit_firing = 3;
/// A served store could not be reached, did not answer within its bound, or
/// had all the sessions it allows: the same command may succeed later.
inline constexpr int exit_unavailable = 4;

/// The command line asks for something that cannot be: an unknown command, a
/// missing argument, a count that is not a number. what() names what was
/// wrong and what to do, without the "soma: " prefix main() adds.
class usage_error : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

} // namespace soma::cli
