#pragma once

/// @file
/// The canonical message of a value that is one run (schema/value.capnp:
/// an EncodedValue whose Value is `data`, `int64s`, `uint64s` or
/// `float64s`), written and recognised word by word.
///
/// Why: a string or a vector of numbers is most of what a large value is,
/// and one alone needs no shape recorded (detail/value_shape.hpp): its
/// message is a few fixed words around it. Written here, the run is copied
/// once, straight into the message; the bytes are those of the general
/// path, byte for byte (codec_test's `determinism` suite). soma::encode
/// and soma::decode use it for such a value (runtime/soma/codec.cpp;
/// docs/codec.md, "Alignment and costs").

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "soma/detail/value_words.hpp"

namespace soma::detail {

/// A run's shape on the wire: its Value's union tag and the size of each
/// element (byte_elements or eight_byte_elements).
struct run_shape {
  std::uint16_t tag;
  unsigned element_size;
  /// Bytes of `count` elements.
  [[nodiscard]] std::size_t bytes(std::size_t count) const noexcept {
    return element_size == byte_elements ? count : count * 8;
  }
};

/// Value.data: bytes.
inline constexpr run_shape bytes_run{data_tag, byte_elements};
/// Value.int64s, uint64s, float64s: 8-byte numbers.
inline constexpr run_shape int64s_run{int64s_tag, eight_byte_elements};
inline constexpr run_shape uint64s_run{uint64s_tag, eight_byte_elements};
inline constexpr run_shape float64s_run{float64s_tag, eight_byte_elements};

/// The size of the message run_message writes, in bytes.
[[nodiscard]] std::size_t run_message_size(std::string_view type, std::size_t run_bytes) noexcept;

/// The canonical message of EncodedValue{type, value: a run of `count`
/// elements of `shape`, `run` (shape.bytes(count) bytes long)}: the 8-byte
/// segment table of one segment, then, in words,
///   0      the root pointer: EncodedValue, no data, 2 pointers
///   1, 2   its type (a Text, NUL-terminated) and its value (a Value)
///   3      the type's bytes, T words
///   3+T    the Value's data, truncated to its first word: the union's tag
///   4+T    the Value's one pointer: the list
///   5+T    the run, padded to a word.
/// The caller checks the limits first: `count` below 2^29, the type's
/// bytes and NUL below 2^29.
[[nodiscard]] std::string run_message(std::string_view type, run_shape shape, std::size_t count,
                                      const void* run);

/// The run in `bytes` when they are exactly what run_message writes for
/// `type` and `shape` (every word before the run, the type's bytes and all
/// padding checked); a view into `bytes`, valid as long as they are. At
/// any alignment. Nothing for any other bytes, valid or not.
[[nodiscard]] std::optional<std::string_view> run_of(std::string_view bytes, std::string_view type,
                                                     run_shape shape) noexcept;

} // namespace soma::detail
