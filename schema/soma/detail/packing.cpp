#include "soma/detail/packing.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <stdexcept>

#include <kj/array.h>

namespace soma::detail {

// A word's bytes are taken lowest first and the segment table written as
// this machine holds numbers: Cap'n Proto's order (little-endian) only when
// the machine's is too.
static_assert(std::endian::native == std::endian::little,
              "soma's packer reads words as little-endian numbers");

namespace {

constexpr std::uint64_t low7 = 0x7F7F7F7F7F7F7F7FULL;
constexpr std::uint64_t high = 0x8080808080808080ULL;

// A run of zero words, or of literal words, holds at most this many after
// the word that starts it: its count is one byte.
constexpr std::size_t longest_run = 255;

std::uint64_t word_at(const capnp::word* p) noexcept {
  std::uint64_t w;
  std::memcpy(&w, p, sizeof w);
  return w;
}

// The high bit of every byte of `w` that is not zero, and no other bit.
std::uint64_t nonzero_bytes(std::uint64_t w) noexcept {
  return (((w & low7) + low7) | w) & high;
}

// Bit i set when byte i of `w` (from the lowest) is not zero: the high bits
// nonzero_bytes leaves, gathered into the top byte by one multiplication
// (bit 8i + 7 moves to bit 56 + i; no two partial products meet, so none
// carries).
unsigned tag_of(std::uint64_t w) noexcept {
  return static_cast<unsigned>(((nonzero_bytes(w) >> 7) * 0x0102040810204080ULL) >> 56);
}

// Whether at most one byte of `w` is zero: the high bits of its zero bytes
// are one bit or none.
bool at_most_one_zero_byte(std::uint64_t w) noexcept {
  auto zeros = ~nonzero_bytes(w) & high;
  return (zeros & (zeros - 1)) == 0;
}

} // namespace

char* pack_words(const capnp::word* in, std::size_t n, char* out) noexcept {
  const capnp::word* end = in + n;
  while (in < end) {
    auto w = word_at(in++);
    auto tag = tag_of(w);
    *out++ = static_cast<char>(tag);
    if (tag == 0) {
      // A zero word, then how many more follow it.
      auto limit = in + std::min<std::size_t>(static_cast<std::size_t>(end - in), longest_run);
      auto from = in;
      while (in < limit && word_at(in) == 0)
        ++in;
      *out++ = static_cast<char>(in - from);
    } else if (tag == 0xFF) {
      // Eight bytes, then how many words follow as they are: every word up
      // to the first with two zero bytes or more (where packing gains
      // again), as Cap'n Proto chooses.
      std::memcpy(out, &w, sizeof w);
      out += sizeof w;
      auto limit = in + std::min<std::size_t>(static_cast<std::size_t>(end - in), longest_run);
      auto from = in;
      while (in < limit && at_most_one_zero_byte(word_at(in)))
        ++in;
      auto words = static_cast<std::size_t>(in - from);
      *out++ = static_cast<char>(words);
      std::memcpy(out, from, words * sizeof(capnp::word));
      out += words * sizeof(capnp::word);
    } else {
      // The bytes that are not zero, in order (a message's words are mostly
      // small numbers and pointers: a few bytes each).
      for (auto bits = nonzero_bytes(w); bits != 0; bits &= bits - 1)
        *out++ = static_cast<char>(w >> (std::countr_zero(bits) - 7));
    }
  }
  return out;
}

void append_packed(std::string& out,
                   kj::ArrayPtr<const kj::ArrayPtr<const capnp::word>> segments) {
  if (segments.size() == 0)
    throw std::invalid_argument("a Cap'n Proto message has at least one segment");
  // The segment table as capnp::writeMessage writes it: the count less
  // one, each segment's size in words, padded to a whole word; packed on
  // its own, as Cap'n Proto writes it, so no run crosses into a segment.
  // Built in words (a message of up to 15 segments needs no allocation).
  std::size_t table_words = (segments.size() + 2) / 2;
  capnp::word small[8];
  kj::Array<capnp::word> large;
  capnp::word* table = small;
  if (table_words > std::size(small)) {
    large = kj::heapArray<capnp::word>(table_words);
    table = large.begin();
  }
  auto put = [&](std::size_t i, std::size_t x) {
    auto v = static_cast<std::uint32_t>(x);
    std::memcpy(reinterpret_cast<char*>(table) + 4 * i, &v, sizeof v);
  };
  put(0, segments.size() - 1);
  std::size_t words = table_words;
  for (std::size_t i = 0; i < segments.size(); ++i) {
    put(i + 1, segments[i].size());
    words += segments[i].size();
  }
  if (segments.size() % 2 == 0)
    put(segments.size() + 1, 0);
  auto at = out.size();
  out.resize(at + packed_bound(words));
  char* p = out.data() + at;
  p = pack_words(table, table_words, p);
  for (auto& s : segments)
    p = pack_words(s.begin(), s.size(), p);
  out.resize(static_cast<std::size_t>(p - out.data()));
}

void append_packed(std::string& out, capnp::MessageBuilder& msg) {
  append_packed(out, msg.getSegmentsForOutput());
}

} // namespace soma::detail
