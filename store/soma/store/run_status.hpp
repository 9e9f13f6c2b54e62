#pragma once

/// @file
/// Where a run stands: still being written, finished (its recorder closed),
/// or ended without closing (its writer died), and how that is known.
///
/// A store is written by processes of the machine it is on (a served
/// store's server writes for its clients), so a reader there can look: the
/// run's metadata names the process that wrote it last (host, boot id, pid
/// and its start time), and a process that is gone, or a machine booted
/// since, is a writer that died. A served store's server also marks a run
/// whose client went without closing. A store read on another machine (a
/// copy) cannot look: its open runs are `unknown`, and say why.

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>

#include "soma/export.hpp"
#include "soma/record.hpp"

SOMA_API_BEGIN

namespace soma {

/// Where a run stands.
enum class run_status : std::uint8_t {
  running,  ///< its writer lives and has not closed it
  finished, ///< its recorder closed it
  died,     ///< it ended without closing: its writer is gone
  unknown,  ///< not closed, and nothing here can tell whether its writer lives
};

/// "running", "finished", "died", "unknown".
[[nodiscard]] std::string_view to_string(run_status s) noexcept;

/// Writes to_string(s).
std::ostream& operator<<(std::ostream& out, run_status s);

/// The status named `word` (to_string's words), or nullopt.
[[nodiscard]] std::optional<run_status> run_status_named(std::string_view word) noexcept;

/// A run's status, and how it is known, in words: "its recorder closed it
/// at 2026-12-03T11:02:15Z", "its writer, pid 4242 on this machine, is
/// gone".
struct run_standing {
  run_status status = run_status::unknown;
  std::string how;
};

namespace detail {

/// This process as a run's writer.
[[nodiscard]] SOMA_API_LOCAL const run_writer& this_writer();

} // namespace detail

} // namespace soma

SOMA_API_END
