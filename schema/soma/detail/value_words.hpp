#pragma once

/// @file
/// The words of a schema/value.capnp message, as soma lays them out by
/// hand (run_message.hpp for a value that is one run, value_shape.hpp for
/// any value): Value's union tags, Cap'n Proto's element sizes, and its
/// pointer words. value_shape.cpp checks each against Cap'n Proto's own.

#include <cstddef>
#include <cstdint>

namespace soma::detail {

/// Value's union tags (schema/value.capnp).
enum value_tag : std::uint16_t {
  unset_tag = 0,
  none_tag = 1,
  boolean_tag = 2,
  int64_tag = 3,
  uint64_tag = 4,
  float64_tag = 5,
  data_tag = 6,
  list_tag = 7,
  int64s_tag = 8,
  uint64s_tag = 9,
  float64s_tag = 10,
};

/// Value.boolean's bit in the Value's first data word, beside the tag
/// (bits 16-17: `capnp compile -ocapnp schema/value.capnp`).
inline constexpr std::uint32_t boolean_true = 1u << 16;

/// Cap'n Proto's ElementSize of a list of bytes (a Text's, a Data's), of
/// one of 8-byte numbers, and of one of structs (a tag word, then the
/// elements).
inline constexpr unsigned byte_elements = 2;
inline constexpr unsigned eight_byte_elements = 5;
inline constexpr unsigned composite_elements = 7;

/// Bytes in a word; words and bytes are written as the machine holds them,
/// which is Cap'n Proto's order (value_shape.cpp checks the machine is
/// little-endian).
inline constexpr std::size_t word_bytes = 8;

/// Words that hold `bytes` bytes, the last padded.
constexpr std::size_t words_of(std::size_t bytes) noexcept { return (bytes + word_bytes - 1) / word_bytes; }

/// Cap'n Proto's pointer words (its encoding spec, "Pointers"): the kind in
/// bits 0-1, the offset in words from the pointer's end to its object in
/// bits 2-31, then for a struct its data and pointer words, for a list its
/// element size (3 bits) and element count (29 bits; a list of structs
/// counts its words, its tag word counts the elements).
constexpr std::uint64_t struct_pointer(std::uint64_t offset, std::uint64_t data, std::uint64_t pointers) noexcept {
  return offset << 2 | data << 32 | pointers << 48;
}
constexpr std::uint64_t list_pointer(std::uint64_t offset, std::uint64_t element_size, std::uint64_t count) noexcept {
  return 1u | offset << 2 | element_size << 32 | count << 35;
}
/// A struct of no words: offset -1, so that it is not null.
inline constexpr std::uint64_t empty_struct_pointer = 0xfffffffcu;

} // namespace soma::detail
