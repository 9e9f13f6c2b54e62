#pragma once

/// @file
/// What a peer may make a process allocate before it is trusted: the limits
/// soma puts on CAF 0.17's BASP (wire_limits.cpp, docs/remote.md "Limits on
/// what a peer may send").

#include <caf/fwd.hpp>

namespace caf {
class config_option_set;
} // namespace caf

namespace soma::detail {

/// Declares the settings of soma's limits in `options` (category `soma`:
/// `wire-limits`, `max-handshake-bytes`, `handshake-within`,
/// `max-unauthenticated`, `max-message-bytes`), so that a config's set(),
/// a config file and the command line take them. The limits hold for an
/// actor system whose config sets `soma.wire-limits` to true;
/// soma::system_config declares them and sets it.
void declare_wire_limits(caf::config_option_set& options);

} // namespace soma::detail
