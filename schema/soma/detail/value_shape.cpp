#include "soma/detail/value_shape.hpp"

#include <algorithm>
#include <bit>
#include <cstring>

#include "soma/schema/value.capnp.h"

namespace soma::detail {

static_assert(std::endian::native == std::endian::little,
              "soma writes Cap'n Proto's little-endian words as the machine holds them");

// value_words.hpp's constants are Cap'n Proto's and schema/value.capnp's.
static_assert(unset_tag == static_cast<std::uint16_t>(schema::Value::UNSET)
              && none_tag == static_cast<std::uint16_t>(schema::Value::NONE)
              && boolean_tag == static_cast<std::uint16_t>(schema::Value::BOOLEAN)
              && int64_tag == static_cast<std::uint16_t>(schema::Value::INT64)
              && uint64_tag == static_cast<std::uint16_t>(schema::Value::UINT64)
              && float64_tag == static_cast<std::uint16_t>(schema::Value::FLOAT64)
              && data_tag == static_cast<std::uint16_t>(schema::Value::DATA)
              && list_tag == static_cast<std::uint16_t>(schema::Value::LIST)
              && int64s_tag == static_cast<std::uint16_t>(schema::Value::INT64S)
              && uint64s_tag == static_cast<std::uint16_t>(schema::Value::UINT64S)
              && float64s_tag == static_cast<std::uint16_t>(schema::Value::FLOAT64S));
static_assert(byte_elements == static_cast<unsigned>(capnp::ElementSize::BYTE)
              && eight_byte_elements == static_cast<unsigned>(capnp::ElementSize::EIGHT_BYTES)
              && composite_elements == static_cast<unsigned>(capnp::ElementSize::INLINE_COMPOSITE)
              && word_bytes == sizeof(capnp::word));
// Value is two data words (the tag and a bool, then a number) and one
// pointer (schema/value.capnp's layout, as `capnp compile -ocapnp` says).
static_assert(capnp::_::structSize<schema::Value>().data == 2
              && capnp::_::structSize<schema::Value>().pointers == 1);

namespace {

using node = value_shape::node;

constexpr std::size_t word = word_bytes;

bool has_pointer(const node& v) noexcept {
  return v.kind() >= data_tag && v.kind() <= float64s_tag;
}

// Canonical form truncates a struct's data to its last word that is not
// zero, and its pointers to the last that is not null.
std::size_t data_words(const node& v) noexcept {
  return v.number != 0 ? 2 : v.head != 0 ? 1 : 0;
}

std::size_t pointer_words(const node& v) noexcept {
  return has_pointer(v) ? 1 : 0;
}

// Words of what `v`'s pointer points at, and of everything under it; a
// list's elements are all as large as its largest, noted in its node.
std::size_t target_words(value_shape& s, node& v) noexcept {
  switch (v.kind()) {
    case data_tag:
    case int64s_tag:
    case uint64s_tag:
    case float64s_tag:
      return words_of(v.payload_bytes());
    case list_tag: {
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
    case data_tag:
    case int64s_tag:
    case uint64s_tag:
    case float64s_tag: {
      auto bytes = v.payload_bytes();
      out.put(ptr, list_pointer(offset, v.kind() == data_tag ? byte_elements : eight_byte_elements,
                                v.length));
      if (v.large()) {
        v.at = static_cast<std::uint32_t>(next);
        ++s.placed;
      } else if (bytes != 0) {
        std::memcpy(out.base + next * word, s.payloads.data() + v.at, bytes);
      }
      next += words_of(bytes);
      return;
    }
    case list_tag: {
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
