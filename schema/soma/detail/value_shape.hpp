#pragma once

/// @file
/// A value's shape, as a codec writes it, and the canonical message laid
/// out from it by hand (schema/value.capnp: an EncodedValue, or a Value
/// alone).
///
/// Why: built in a Cap'n Proto builder and then copied into its canonical
/// form, a value was written twice, into segments that were zeroed and
/// grown as it went, and a map of 20 took about 5 µs. Here a codec's write
/// records each Value (its tag, its number, the length of its bytes or
/// list) in a flat array; then the message is sized, and every word is
/// written once, where canonical form puts it: objects in pre-order, each
/// struct's data and pointer sections truncated, a list's elements all as
/// large as its largest (Cap'n Proto's encoding spec, "Canonicalization").
/// The bytes are the builder's, byte for byte, for every value a codec
/// writes once into each writer (codec_test's `layout` suite checks them
/// against Cap'n Proto's own canonicalize, and pins the builder's).
///
/// A payload (bytes, or a list of numbers) under `large_payload` bytes is
/// copied into the shape as it is written; a larger one is not: its place
/// in the message is kept, and the codec's write is called a second time
/// to copy it straight there (runtime/soma/codec.cpp). So a large value is
/// copied once, wherever it sits in the value.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "soma/detail/value_words.hpp"

namespace soma::detail {

struct value_shape {
  /// A payload of this many bytes or more is copied by the second pass.
  static constexpr std::size_t large_payload = 4096;
  /// A node's `at` for a large payload not yet given its place.
  static constexpr std::uint32_t unplaced = UINT32_MAX;

  /// One Value.
  struct node {
    std::uint64_t number = 0; ///< data word 1: an int64's, uint64's or float64's bits
    std::uint32_t head = 0;   ///< data word 0: the union's tag, a bool at bit 16
    /// A list's elements, a data's bytes, a list of numbers' numbers.
    std::uint32_t length = 0;
    /// A list: its first element's node (the elements are consecutive). A
    /// small payload: its offset in `payloads`. A large one: its word in
    /// the message once laid out, `unplaced` until then (or when nothing
    /// points at it: the node was written over).
    std::uint32_t at = 0;
    std::uint32_t writes = 0; ///< how many times the codec wrote it
    /// A list's elements' data and pointer words, once sized.
    std::uint8_t element_data = 0;
    std::uint8_t element_pointers = 0;

    [[nodiscard]] std::uint16_t kind() const noexcept { return static_cast<std::uint16_t>(head & 0xffff); }
    /// Bytes, or a list of numbers: what the codec hands over in one piece.
    [[nodiscard]] bool payload() const noexcept {
      return kind() == data_tag || (kind() >= int64s_tag && kind() <= float64s_tag);
    }
    /// A payload's bytes.
    [[nodiscard]] std::size_t payload_bytes() const noexcept {
      return kind() == data_tag ? length : std::size_t{length} * word_bytes;
    }
    /// A payload for the second pass.
    [[nodiscard]] bool large() const noexcept { return payload() && payload_bytes() >= large_payload; }
  };

  std::vector<node> nodes; ///< [0] is the root
  std::string payloads;    ///< the small payloads, one after another
  std::size_t placed = 0;  ///< large payloads laid out (the second pass must fill each)

  void clear() noexcept {
    nodes.clear();
    payloads.clear();
    placed = 0;
  }
};

/// The size in bytes of the message `encoded_value_message` writes (and
/// the size of each list's elements, noted in its node for the layout).
[[nodiscard]] std::size_t encoded_value_size(value_shape& shape, std::string_view type) noexcept;

/// The canonical message of EncodedValue{type, the value in `shape`},
/// after its 8-byte segment table; large payloads are left zero, their
/// words noted in their nodes. `total` is what encoded_value_size said for
/// them, within codec_limits::max_bytes; the caller has checked that the
/// type's bytes and NUL are below 2^29.
[[nodiscard]] std::string encoded_value_message(value_shape& shape, std::string_view type, std::size_t total);

/// The size in bytes of the message `value_message` writes (and each
/// list's element size, noted as encoded_value_size notes it).
[[nodiscard]] std::size_t value_message_size(value_shape& shape) noexcept;

/// The canonical message of the Value in `shape` alone, as the root, with
/// no segment table: the bytes an unordered map's keys are ordered by.
/// `size` is what value_message_size said, within codec_limits::max_bytes.
[[nodiscard]] std::string value_message(value_shape& shape, std::size_t size);

} // namespace soma::detail
