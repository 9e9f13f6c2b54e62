#pragma once

/// @file
/// soma's errors as CAF errors: what an actor that asked a graph for a
/// forward receives instead of a value, and what every fallible call that
/// returns `caf::expected` carries (docs/architecture.md, "Errors"). Show a
/// person describe(e), never CAF's to_string.

#include <cstdint>
#include <string>

#include <caf/atom.hpp>
#include <caf/error.hpp>

#include "soma/export.hpp"

SOMA_API_BEGIN

namespace soma {

/// The category of every caf::error soma makes.
inline constexpr caf::atom_value error_category = caf::atom("soma");

/// What went wrong, as a code inside a caf::error of category "soma".
enum class error_code : std::uint8_t {
  node_failed = 1,     ///< a node threw; the context names it and its error
  watcher_failed = 2,  ///< a callable watcher threw; the forward itself finished
  forward_dropped = 3, ///< the graph went away before the forward finished
  store_failed = 4,    ///< a store could not be opened, read or written
  invalid = 5,         ///< what was given is malformed: a run id, a study name, a query
  damaged = 6,         ///< bytes fail their checks: a cache entry, a trial, a data file
  refused = 7,         ///< a store would not do what was asked as things stand: end an
                       ///< attempt that is no longer the trial's, a client of another
                       ///< protocol, a soma-node that serves no store
  missing = 8,         ///< what was asked for is not in the store: a run, a forward, a study
  unreachable = 9,     ///< a served store could not be reached, or its connection went
  timed_out = 10,      ///< a served store did not answer within the call's bound
  busy = 11,           ///< a served store has as many sessions open as it allows
  read_only = 12       ///< a write asked of a store (or a session) opened read-only
};

/// A caf::error of category "soma" whose context is `node` then `message`.
[[nodiscard]] caf::error make_error(error_code code, std::string node, std::string message);

/// A caf::error of category "soma" that blames no node: `message` names the
/// thing that was wrong and what to do.
[[nodiscard]] caf::error make_error(error_code code, std::string message);

/// For an error made by soma: the node it names (empty when none).
[[nodiscard]] std::string error_node(const caf::error& e);

/// A sentence saying what went wrong, for any caf::error; for soma's the same
/// text soma::forward_error::what() gives.
[[nodiscard]] std::string describe(const caf::error& e);

/// How a failed node is described everywhere: "node 'x' failed: <error>",
/// or "forward failed: <error>" when no node is to blame.
[[nodiscard]] std::string describe_failure(const std::string& node, const std::string& error);

} // namespace soma

SOMA_API_END
