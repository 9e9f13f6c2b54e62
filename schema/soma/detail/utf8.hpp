#pragma once

/// @file
/// Telling UTF-8 text from other bytes: what JSON may carry as it is, and
/// what a run id must be.

#include <cstddef>
#include <string_view>

namespace soma::detail {

/// The length of the well-formed UTF-8 sequence at the start of `s` (RFC
/// 3629: no overlong forms, no surrogates, nothing past U+10FFFF) that
/// begins with a byte of 0x80 or more, or 0.
[[nodiscard]] std::size_t utf8_length(std::string_view s);

/// Where the first byte of `s` that is not part of well-formed UTF-8 is;
/// s.size() when all of it is.
[[nodiscard]] std::size_t first_not_utf8(std::string_view s);

} // namespace soma::detail
