#pragma once

/// @file
/// Reading a count typed on the command line. CLI11 would accept "1e3" or
/// wrap "-1" around to a huge unsigned number; a forward number is neither.

#include <cstdint>
#include <string_view>

namespace soma::cli {

/// `text` as a whole number, 0 or more, in decimal. Throws usage_error
/// naming `what` (e.g. "N of `soma facts RUN N`") and the text otherwise.
[[nodiscard]] std::uint64_t parse_count(std::string_view text, std::string_view what);

} // namespace soma::cli
