#pragma once

/// @file
/// soma::outcome: how a forward ended, as a record keeps it.

#include <cstdint>
#include <iosfwd>
#include <string_view>

#include "soma/export.hpp"

SOMA_API_BEGIN

namespace soma {

/// How a forward ended.
enum class outcome : std::uint8_t {
  ok,    ///< finished with a value
  broke, ///< a node failed
  open   ///< the recorder closed before the forward ended
};

/// "ok", "broke" or "open".
[[nodiscard]] std::string_view to_string(outcome x) noexcept;

/// Writes to_string(x).
std::ostream& operator<<(std::ostream& out, outcome x);

} // namespace soma

SOMA_API_END
