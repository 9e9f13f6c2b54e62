#pragma once

/// @file
/// A moment as the store's messages say it: UTC, ISO 8601, to the second.

#include <cstdint>
#include <string>

namespace soma::detail {

/// Unix microseconds `us` as "2026-12-03T11:02:15Z" ("?" for one gmtime cannot take).
[[nodiscard]] std::string utc(std::int64_t us);

} // namespace soma::detail
