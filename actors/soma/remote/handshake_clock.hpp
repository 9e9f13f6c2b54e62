#pragma once

/// @file
/// A connect's silence clock starts at the connect, not at the clock's
/// epoch: soma's fix of CAF 0.17's basp_broker (handshake_clock.cpp,
/// docs/remote.md "Known limits").

namespace caf {
class config_option_set;
} // namespace caf

namespace soma::detail {

/// Declares `soma.handshake-clock` in `options`. The fix holds for the
/// actor systems whose config sets it to true; soma::system_config declares
/// it and sets it.
void declare_handshake_clock(caf::config_option_set& options);

} // namespace soma::detail
