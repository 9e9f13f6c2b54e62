#include "soma/detail/value_shape.hpp"

#include <algorithm>
#include <bit>
#include <cstring>

#include "soma/detail/run_message.hpp"
#include "soma/schema/value.capnp.h"

namespace soma::detail {

static_assert(std::endian::native == std::endian::little,
              "soma writes Cap'n Proto's little-endian words as the machine holds them");

using tags = value_shape::tag;
static_assert(tags::unset_tag == static_cast<std::uint16_t>(schema::Value::UNSET)
              && tags::none_tag == static_cast<std::uint16_t>(schema::Value::NONE)
              && tags::boolean_tag == static_cast<std::uint16_t>(schema::Value::BOOLEAN)
              && tags::int64_tag == static_cast<std::uint16_t>(schema::Value::INT64)
              && tags::uint64_tag == static_cast<std::uint16_t>(schema::Value::UINT64)
              && tags::float64_tag == static_cast<std::uint16_t>(schema::Value::FLOAT64)
              && tags::data_tag == static_cast<std::uint16_t>(schema::Value::DATA)
              && tags::list_tag == static_cast<std::uint16_t>(schema::Value::LIST)
              && tags::int64s_tag == static_cast<std::uint16_t>(schema::Value::INT64S)
              && tags::uint64s_tag == static_cast<std::uint16_t>(schema::Value::UINT64S)
              && tags::float64s_tag == static_cast<std::uint16_t>(schema::Value::FLOAT64S));
// Value is two data words (the tag and a bool, then a number) and one
// pointer (schema/value.capnp's layout, as `capnp compile -ocapnp` says).
static_assert(capnp::_::structSize<schema::Value>().data == 2
              && capnp::_::structSize<schema::Value>().pointers == 1);

namespace {

using node = value_shape::node;

constexpr std::size_t word = 8;
constexpr std::uint64_t composite_elements = 7; // Cap'n Proto's ElementSize::INLINE_COMPOSITE
static_assert(composite_elements == static_cast<unsigned>(capnp::ElementSize::INLINE_COMPOSITE));

// Cap'n Proto's pointer words (its encoding spec, "Pointers"), as in
// run_message.cpp: the kind in bits 0-1, the offset in words from the
// pointer's end in bits 2-31, then a struct's data and pointer words, or a
// list's element size (3 bits) and count (29 bits).
constexpr std::uint64_t struct_pointer(std::uint64_t offset, std::uint64_t data, std::uint64_t pointers) {
  return offset << 2 | data << 32 | pointers << 48;
}
constexpr std::uint64_t list_pointer(std::uint64_t offset, std::uint64_t element_size, std::uint64_t count) {
  return 1u | offset << 2 | element_size << 32 | count << 35;
}
// A struct of no words: offset -1, so that it is not null.
constexpr std::uint64_t empty_struct_pointer = 0xfffffffcu;

constexpr std::size_t words_of(std::size_t bytes) { return (bytes + word - 1) / word; }

bool has_pointer(const node& v) noexcept {
  return v.kind() >= tags::data_tag && v.kind() <= tags::float64s_tag;
}

// Canonical form truncates a struct's data to its last word that is not
// zero, and its pointers to the last that is not null.
std::size_t data_words(const node& v) noexcept {
  return v.number != 0 ? 2 : v.head != 0 ? 1 : 0;
}

std::size_t pointer_words(const node& v) noexcept {
  return has_pointer(v) ? 1 : 0;
}

// The bytes of a payload: a data's, or a list of numbers'.
std::size_t payload_bytes(const node& v) noexcept {
  return v.kind() == tags::data_tag ? v.length : std::size_t{v.length} * word;
}

// Words of what `v`'s pointer points at, and of everything under it; a
// list's elements are all as large as its largest, noted in its node.
std::size_t target_words(value_shape& s, node& v) noexcept {
  switch (v.kind()) {
    case tags::data_tag:
    case tags::int64s_tag:
    case tags::uint64s_tag:
    case tags::float64s_tag:
      return words_of(payload_bytes(v));
    case tags::list_tag: {
      std::size_t data = 0;
      std::size_t pointers = 0;
      std::size_t under = 0;
      for (std::uint32_t i = 0; i < v.length; ++i) {
        auto& x = s.nodes[v.at + i];
        data = std::max(data, data_words(x));
        pointers = std::max(pointers, pointer_words(x));
        under += target_words(s, x);
      }
      v.element_data = static_cast<std::uint8_t>(data);
      v.element_pointers = static_cast<std::uint8_t>(pointers);
      return 1 + std::size_t{v.length} * (data + pointers) + under;
    }
    default:
      return 0;
  }
}

// Writes words into a message whose first word is at `base`.
struct words {
  char* base;
  void put(std::size_t at, std::uint64_t w) const noexcept { std::memcpy(base + at * word, &w, word); }
};

// Writes struct `v`'s data (of `data` words) at word `at`.
void put_data(words out, const node& v, std::size_t at, std::size_t data) noexcept {
  if (data >= 1)
    out.put(at, v.head);
  if (data >= 2)
    out.put(at + 1, v.number);
}

// Writes `v`'s pointer at word `ptr` and what it points at from word
// `next` on, in pre-order; `next` ends past it.
void place(value_shape& s, node& v, words out, std::size_t ptr, std::size_t& next) {
  auto offset = next - ptr - 1;
  switch (v.kind()) {
    case tags::data_tag:
    case tags::int64s_tag:
    case tags::uint64s_tag:
    case tags::float64s_tag: {
      auto bytes = payload_bytes(v);
      out.put(ptr, list_pointer(offset, v.kind() == tags::data_tag ? byte_elements : eight_byte_elements,
                                v.length));
      if (v.large) {
        v.at = static_cast<std::uint32_t>(next);
        ++s.placed;
      } else if (bytes != 0) {
        std::memcpy(out.base + next * word, s.payloads.data() + v.at, bytes);
      }
      next += words_of(bytes);
      return;
    }
    case tags::list_tag: {
      std::size_t data = v.element_data;
      auto each = data + v.element_pointers;
      out.put(ptr, list_pointer(offset, composite_elements, std::size_t{v.length} * each));
      // The tag word: a struct pointer whose offset is the element count.
      out.put(next, struct_pointer(v.length, data, v.element_pointers));
      auto first = next + 1;
      next = first + std::size_t{v.length} * each;
      for (std::uint32_t i = 0; i < v.length; ++i) {
        auto& x = s.nodes[v.at + i];
        auto at = first + i * each;
        put_data(out, x, at, data);
        if (has_pointer(x))
          place(s, x, out, at + data, next);
      }
      return;
    }
    default:
      return;
  }
}

// Writes the root Value's pointer at word `ptr` and the Value from word
// `next` on.
void place_root(value_shape& s, words out, std::size_t ptr, std::size_t next) {
  auto& root = s.nodes.front();
  auto data = data_words(root);
  auto pointers = pointer_words(root);
  if (data + pointers == 0) {
    out.put(ptr, empty_struct_pointer);
    return;
  }
  out.put(ptr, struct_pointer(next - ptr - 1, data, pointers));
  put_data(out, root, next, data);
  auto after = next + data + pointers;
  if (pointers != 0)
    place(s, root, out, next + data, after);
}

std::size_t root_words(value_shape& s) noexcept {
  auto& root = s.nodes.front();
  return data_words(root) + pointer_words(root) + target_words(s, root);
}

} // namespace

std::size_t encoded_value_size(value_shape& shape, std::string_view type) noexcept {
  // The segment table, the root pointer, EncodedValue's two pointers, the
  // type (a Text: its bytes and a NUL), then the Value.
  return word * (1 + 3 + words_of(type.size() + 1) + root_words(shape));
}

std::string encoded_value_message(value_shape& shape, std::string_view type, std::size_t total) {
  auto text_words = words_of(type.size() + 1);
  std::string out(total, '\0');
  shape.placed = 0;
  words msg{out.data() + word};
  std::uint64_t table = std::uint64_t{total / word - 1} << 32; // one segment of that many words
  std::memcpy(out.data(), &table, word);
  msg.put(0, struct_pointer(0, 0, 2));
  msg.put(1, list_pointer(1, byte_elements, type.size() + 1));
  std::memcpy(msg.base + 3 * word, type.data(), type.size());
  place_root(shape, msg, 2, 3 + text_words);
  return out;
}

std::size_t value_message_size(value_shape& shape) noexcept {
  return word * (1 + root_words(shape));
}

std::string value_message(value_shape& shape, std::size_t size) {
  std::string out(size, '\0');
  shape.placed = 0;
  place_root(shape, words{out.data()}, 0, 1);
  return out;
}

} // namespace soma::detail
