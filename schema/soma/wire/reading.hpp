#pragma once

/// @file
/// A machine reading as bytes (schema/soma.capnp Reading): the payload a
/// store keeps inside its envelope, and what a writer sends a served store.

#include <string>
#include <string_view>

#include "soma/reading.hpp"

namespace soma::wire {

[[nodiscard]] std::string encode_reading(const reading& r);

/// Throws detail::undecodable when the bytes are not a Reading.
[[nodiscard]] reading decode_reading(std::string_view bytes);

} // namespace soma::wire
