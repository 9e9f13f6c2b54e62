#pragma once

/// @file
/// The compact encoding of format 2 (docs/formats.md, "Compact encoding"):
/// varints, words from a fixed dictionary, and fact texts that are numbers
/// kept as numbers. soma writes format 3 (packed.hpp) and only reads this;
/// the writers stay for tests that make format-2 values. Every byte a reader takes is bounds-checked; running
/// out or meeting a tag it does not know sets `failed`, never reads past
/// the end.

#include <array>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "soma/scalar.hpp"

namespace soma::detail::compact {

/// The dictionary of format 2: a word here is written as its index. Only
/// ever appended to (a reader of an older soma refuses an index it does not
/// know, as damage).
inline constexpr std::array<std::string_view, 28> words = {
  "ran",     "failed",  "recalled", "kept",     "items", "left",  "finished",
  "broke",   "machine", "node",     "took_us",  "began_us", "error", "bytes",
  "host",    "device",  "id",       "busy",     "memory",   "cores", "up_us",
  "served",  "value",   "loss",     "version",  "type",     "acc",   "step"};

/// The index of `s` in `words`, or -1.
inline int word_of(std::string_view s) noexcept {
  if (s.size() < 2 || s.size() > 8)
    return -1;
  for (std::size_t i = 0; i < words.size(); ++i)
    if (words[i].size() == s.size() && std::memcmp(words[i].data(), s.data(), s.size()) == 0)
      return static_cast<int>(i);
  return -1;
}

inline void put_varint(std::string& out, std::uint64_t x) {
  char buf[10];
  int n = 0;
  while (x >= 0x80) {
    buf[n++] = static_cast<char>((x & 0x7f) | 0x80);
    x >>= 7;
  }
  buf[n++] = static_cast<char>(x);
  out.append(buf, static_cast<std::size_t>(n));
}

inline std::uint64_t zigzag(std::int64_t x) noexcept {
  return (static_cast<std::uint64_t>(x) << 1) ^ static_cast<std::uint64_t>(x >> 63);
}

inline std::int64_t unzigzag(std::uint64_t x) noexcept {
  return static_cast<std::int64_t>(x >> 1) ^ -static_cast<std::int64_t>(x & 1);
}

/// A name: a dictionary word as varint 2i, any other text as varint 2n+1
/// then its n bytes.
inline void put_name(std::string& out, std::string_view s) {
  if (int w = word_of(s); w >= 0) {
    put_varint(out, static_cast<std::uint64_t>(w) * 2);
    return;
  }
  put_varint(out, s.size() * 2 + 1);
  out.append(s);
}

/// Tags of a fact's text.
enum tag : unsigned char { text_tag = 0, integer_tag = 1, real_tag = 2, word_tag = 3 };

/// A fact's text: an integer (zigzag varint) or a double (8 bytes,
/// little-endian) when the text is exactly how soma writes that number, a
/// dictionary word, else the text itself. Reads back byte for byte.
inline void put_text(std::string& out, std::string_view s) {
  auto v = scalar_of_text(s); // the same rule as reading an older soma's text
  if (auto i = v.integer()) {
    out.push_back(static_cast<char>(integer_tag));
    put_varint(out, zigzag(*i));
  } else if (v.is_real()) {
    out.push_back(static_cast<char>(real_tag));
    double d = *v.number();
    std::uint64_t bits = 0;
    std::memcpy(&bits, &d, sizeof bits);
    char b[8];
    for (int k = 0; k < 8; ++k)
      b[k] = static_cast<char>(bits >> (8 * k));
    out.append(b, 8);
  } else if (int w = word_of(s); w >= 0) {
    out.push_back(static_cast<char>(word_tag));
    put_varint(out, static_cast<std::uint64_t>(w));
  } else {
    out.push_back(static_cast<char>(text_tag));
    put_varint(out, s.size());
    out.append(s);
  }
}

/// Reads what the put_ functions wrote; once `failed`, every read gives 0
/// or empty.
class reader {
public:
  explicit reader(std::string_view bytes) noexcept
    : p_(reinterpret_cast<const unsigned char*>(bytes.data())), end_(p_ + bytes.size()) {}

  bool failed = false;

  [[nodiscard]] bool at_end() const noexcept { return p_ == end_; }

  std::uint64_t varint() noexcept {
    std::uint64_t x = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (p_ == end_)
        return fail();
      auto b = *p_++;
      x |= static_cast<std::uint64_t>(b & 0x7f) << shift;
      if (!(b & 0x80))
        return x;
    }
    return fail();
  }

  /// A count of things each at least `least` bytes long: no more than what
  /// is left could hold (so damage cannot make a reader reserve gigabytes).
  std::size_t count(std::size_t least = 1) noexcept {
    auto n = varint();
    if (n > static_cast<std::uint64_t>(end_ - p_) / least)
      return static_cast<std::size_t>(fail());
    return static_cast<std::size_t>(n);
  }

  unsigned char byte() noexcept {
    if (p_ == end_)
      return static_cast<unsigned char>(fail());
    return *p_++;
  }

  std::string_view bytes(std::uint64_t n) noexcept {
    if (n > static_cast<std::uint64_t>(end_ - p_)) {
      fail();
      return {};
    }
    std::string_view out{reinterpret_cast<const char*>(p_), static_cast<std::size_t>(n)};
    p_ += n;
    return out;
  }

  std::string name() {
    auto x = varint();
    if (x % 2 == 0)
      return std::string{word(x / 2)};
    return std::string{bytes(x / 2)};
  }

  /// A name as a view (into the bytes or the dictionary).
  std::string_view name_view() noexcept {
    auto x = varint();
    if (x % 2 == 0)
      return word(x / 2);
    return bytes(x / 2);
  }

  /// A fact's value: a number kept as a number reads as that number (as
  /// scalar_of_text reads its text), anything else as text.
  scalar value() {
    switch (byte()) {
      case integer_tag: return scalar{unzigzag(varint())};
      case real_tag: {
        auto b = bytes(8);
        if (failed)
          return {};
        std::uint64_t bits = 0;
        for (int k = 0; k < 8; ++k)
          bits |= static_cast<std::uint64_t>(static_cast<unsigned char>(b[k])) << (8 * k);
        double d = 0;
        std::memcpy(&d, &bits, sizeof d);
        return scalar{d};
      }
      case word_tag: return scalar{word(varint())};
      case text_tag: return scalar{bytes(varint())};
      default: fail(); return {};
    }
  }

private:
  std::string_view word(std::uint64_t i) noexcept {
    if (i >= words.size()) {
      fail();
      return {};
    }
    return words[i];
  }

  std::uint64_t fail() noexcept {
    failed = true;
    p_ = end_;
    return 0;
  }

  const unsigned char* p_;
  const unsigned char* end_;
};

} // namespace soma::detail::compact
