#pragma once

/// @file
/// The compact encoding of format 2 (docs/formats.md, "Compact encoding"):
/// varints, words from a fixed dictionary, and fact texts that are numbers
/// kept as numbers. Every byte a reader takes is bounds-checked; running
/// out or meeting a tag it does not know sets `failed`, never reads past
/// the end.

#include <array>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

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

// Whether `s` is an integer exactly as soma::text writes one.
inline bool canonical_integer(std::string_view s, std::int64_t& x) noexcept {
  if (s.empty() || s.size() > 20)
    return false;
  std::size_t i = s[0] == '-' ? 1 : 0;
  if (i == s.size() || (s[i] == '0' && (s.size() > i + 1 || i == 1)))
    return false;
  for (std::size_t j = i; j < s.size(); ++j)
    if (s[j] < '0' || s[j] > '9')
      return false;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), x);
  return ec == std::errc{} && end == s.data() + s.size();
}

// Whether `s` is a double exactly as soma::text writes one (the shortest
// text that reads back to it).
inline bool canonical_real(std::string_view s, double& x) noexcept {
  if (s.empty() || s.size() > 32)
    return false;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), x);
  if (ec != std::errc{} || end != s.data() + s.size())
    return false;
  char buf[32];
  auto [back, ec2] = std::to_chars(buf, buf + sizeof buf, x);
  return ec2 == std::errc{} && std::string_view{buf, static_cast<std::size_t>(back - buf)} == s;
}

/// A fact's text: an integer (zigzag varint) or a double (8 bytes,
/// little-endian) when the text is exactly how soma writes that number, a
/// dictionary word, else the text itself. Reads back byte for byte.
inline void put_text(std::string& out, std::string_view s) {
  std::int64_t i = 0;
  double d = 0;
  if (canonical_integer(s, i)) {
    out.push_back(static_cast<char>(integer_tag));
    put_varint(out, zigzag(i));
  } else if (s.find_first_of(".e") != std::string_view::npos && canonical_real(s, d)) {
    out.push_back(static_cast<char>(real_tag));
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

  /// A text, as the number it was kept as (true, `number` set) or as its
  /// bytes (false, `text` set): for readers that want numbers.
  bool text_or_number(double& number, std::string_view& text) noexcept {
    switch (byte()) {
      case integer_tag: number = static_cast<double>(unzigzag(varint())); return true;
      case real_tag: {
        auto b = bytes(8);
        if (failed)
          return false;
        std::uint64_t bits = 0;
        for (int k = 0; k < 8; ++k)
          bits |= static_cast<std::uint64_t>(static_cast<unsigned char>(b[k])) << (8 * k);
        std::memcpy(&number, &bits, sizeof number);
        return true;
      }
      case word_tag: text = word(varint()); return false;
      case text_tag: text = bytes(varint()); return false;
      default: fail(); return false;
    }
  }

  std::string text() {
    switch (byte()) {
      case integer_tag: {
        char buf[24];
        auto [end, ec] = std::to_chars(buf, buf + sizeof buf, unzigzag(varint()));
        return std::string(buf, end);
      }
      case real_tag: {
        auto b = bytes(8);
        if (failed)
          return {};
        std::uint64_t bits = 0;
        for (int k = 0; k < 8; ++k)
          bits |= static_cast<std::uint64_t>(static_cast<unsigned char>(b[k])) << (8 * k);
        double d = 0;
        std::memcpy(&d, &bits, sizeof d);
        char buf[32];
        auto [end, ec] = std::to_chars(buf, buf + sizeof buf, d);
        return std::string(buf, end);
      }
      case word_tag: return std::string{word(varint())};
      case text_tag: return std::string{bytes(varint())};
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
