#pragma once

/// @file
/// The store's own helpers for the bytes of its keys (soma/store/keys.hpp
/// has the layout and the keys other layers make): numbers as 8
/// big-endian bytes, the end of a run's keys, and a key as a message names
/// it. Only the store layer calls them, so they are not exported.

#include <cstdint>
#include <string>
#include <string_view>

namespace soma::detail {

/// `run/<id>0`: the first key after every key of `run` ('/' + 1; an id
/// holds no '/'), where a seek lands to find the run's last entry before it.
[[nodiscard]] std::string past_run(std::string_view run);

/// A key as a person reads it, for messages: run/<id>/<n> for a run's entry,
/// else its first 96 bytes with anything unprintable as \xNN.
[[nodiscard]] std::string printable_key(std::string_view key);

/// `x` as 8 big-endian bytes: keys holding it sort numerically.
[[nodiscard]] std::string be64(std::uint64_t x);

/// The number in 8 big-endian bytes (fewer read as the high bytes missing).
[[nodiscard]] std::uint64_t from_be64(std::string_view bytes);

} // namespace soma::detail
