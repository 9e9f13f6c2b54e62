// soma's packer (schema/soma/detail/packing.hpp) against Cap'n Proto's own:
// the same bytes for the same segments, at every choice packing makes.

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <capnp/message.h>
#include <capnp/serialize-packed.h>
#include <kj/io.h>

#include "soma/detail/packing.hpp"
#include "soma/schema/soma.capnp.h"

namespace {

using words = std::vector<capnp::word>;

capnp::word word_of(std::uint64_t x) {
  capnp::word w;
  std::memcpy(static_cast<void*>(&w), &x, sizeof w);
  return w;
}

// What capnp::writePackedMessage writes for `segments`.
std::string capnp_packed(const std::vector<words>& segments) {
  std::vector<kj::ArrayPtr<const capnp::word>> parts;
  std::size_t total = 1;
  for (auto& s : segments) {
    parts.push_back(kj::arrayPtr(s.data(), s.size()));
    total += s.size() + 1;
  }
  std::string out(total * 10 + 64, '\0');
  kj::ArrayOutputStream stream{
    kj::arrayPtr(reinterpret_cast<kj::byte*>(out.data()), out.size())};
  capnp::writePackedMessage(stream, kj::arrayPtr(parts.data(), parts.size()));
  out.resize(stream.getArray().size());
  return out;
}

// What soma's packer writes for `segments`; fails the test when it wrote
// more than packed_bound says it may (the room append_packed makes).
std::string soma_packed(const std::vector<words>& segments) {
  std::vector<kj::ArrayPtr<const capnp::word>> parts;
  std::size_t words = (segments.size() + 2) / 2; // the segment table
  for (auto& s : segments) {
    parts.push_back(kj::arrayPtr(s.data(), s.size()));
    words += s.size();
  }
  std::string out;
  soma::detail::append_packed(out, kj::arrayPtr(parts.data(), parts.size()));
  BOOST_TEST(out.size() <= soma::detail::packed_bound(words));
  return out;
}

// `n` words of `x`.
words repeated(std::size_t n, std::uint64_t x) {
  return words(n, word_of(x));
}

words joined(std::initializer_list<words> parts) {
  words out;
  for (auto& p : parts)
    out.insert(out.end(), p.begin(), p.end());
  return out;
}

// A word with exactly `zeros` zero bytes, at places `rng` picks.
std::uint64_t with_zero_bytes(std::mt19937_64& rng, int zeros) {
  std::uint64_t x = 0;
  std::vector<int> places{0, 1, 2, 3, 4, 5, 6, 7};
  std::shuffle(places.begin(), places.end(), rng);
  for (int i = zeros; i < 8; ++i)
    x |= static_cast<std::uint64_t>(1 + rng() % 255) << (8 * places[i]);
  return x;
}

// A segment of `n` words from runs of one kind each: zero words, words with
// no zero byte or one (which a literal run takes), words with two zero bytes
// (which end one), and words of random bytes, half of them zero.
words segment(std::mt19937_64& rng, std::size_t n) {
  words out;
  while (out.size() < n) {
    auto kind = rng() % 5;
    // Runs of up to 600 words, so that some pass the 255 a count holds.
    auto run = std::min<std::size_t>(n - out.size(), rng() % 4 == 0 ? 1 + rng() % 600 : 1 + rng() % 6);
    for (std::size_t i = 0; i < run; ++i) {
      std::uint64_t x = 0;
      switch (kind) {
        case 0: x = 0; break;
        case 1: x = with_zero_bytes(rng, 0); break;
        case 2: x = with_zero_bytes(rng, 1); break;
        case 3: x = with_zero_bytes(rng, 2); break;
        default:
          for (int b = 0; b < 8; ++b)
            if (rng() % 2)
              x |= static_cast<std::uint64_t>(rng() % 256) << (8 * b);
      }
      out.push_back(word_of(x));
    }
  }
  return out;
}

} // namespace

BOOST_AUTO_TEST_SUITE(packing)

BOOST_AUTO_TEST_CASE(every_tag_packs_as_capnp_packs_it) {
  // Each byte of a word on its own zero or not (all 256 tags), one byte at
  // 0x80 and 0x01 (the ends the tag's arithmetic must tell from zero), and
  // the word followed by words that do or do not extend its run.
  for (unsigned tag = 0; tag < 256; ++tag)
    for (std::uint64_t fill : {0x80ULL, 0x01ULL, 0xFFULL, 0x7FULL}) {
      std::uint64_t x = 0;
      for (int b = 0; b < 8; ++b)
        if (tag & (1u << b))
          x |= fill << (8 * b);
      std::vector<words> seg{{word_of(x), word_of(x), word_of(0xFF00FF00FF00FF00ULL),
                              word_of(0x0101010101010100ULL), word_of(0)}};
      BOOST_TEST_CONTEXT("tag " << tag << ", fill " << fill) {
        BOOST_TEST(soma_packed(seg) == capnp_packed(seg));
      }
    }
}

BOOST_AUTO_TEST_CASE(random_segments_pack_as_capnp_packs_them) {
  std::mt19937_64 rng{20261207};
  for (int round = 0; round < 400; ++round) {
    // One segment mostly, as soma's messages have; two to four for the
    // segment table's padding.
    std::size_t count = round % 10 == 0 ? 2 + round % 3 : 1;
    std::vector<words> segs;
    for (std::size_t i = 0; i < count; ++i)
      segs.push_back(segment(rng, 1 + rng() % (round % 7 == 0 ? 2000 : 80)));
    BOOST_TEST_CONTEXT("round " << round) {
      BOOST_TEST(soma_packed(segs) == capnp_packed(segs));
    }
  }
}

BOOST_AUTO_TEST_CASE(runs_end_where_capnp_ends_them) {
  constexpr std::uint64_t full = 0x0102030405060708ULL;     // no zero byte
  constexpr std::uint64_t one_zero = 0x0102030405060700ULL; // a literal run goes on
  constexpr std::uint64_t low_high = 0x0002030405060700ULL; // two zeros, bytes 0 and 7
  constexpr std::uint64_t top_two = 0x0000030405060708ULL;  // two zeros, bytes 6 and 7
  std::vector<std::pair<const char*, std::vector<words>>> cases = {
    {"254 zero words", {repeated(254, 0)}},
    {"255 zero words", {repeated(255, 0)}},
    {"256 zero words", {repeated(256, 0)}},
    {"257 zero words", {repeated(257, 0)}},
    {"511 zero words", {repeated(511, 0)}},
    {"512 zero words, then one", {joined({repeated(512, 0), repeated(1, 1)})}},
    {"a full word, then 254 with one zero byte", {joined({repeated(1, full), repeated(254, one_zero)})}},
    {"a full word, then 255 with one zero byte", {joined({repeated(1, full), repeated(255, one_zero)})}},
    {"a full word, then 256 with one zero byte", {joined({repeated(1, full), repeated(256, one_zero)})}},
    {"a full word, then two zeros at bytes 0 and 7", {joined({repeated(2, full), repeated(1, low_high), repeated(2, full)})}},
    {"a full word, then two zeros at bytes 6 and 7", {joined({repeated(2, full), repeated(1, top_two), repeated(2, full)})}},
    {"zero words across two segments", {repeated(3, 0), repeated(3, 0)}},
    {"full words across two segments", {repeated(3, full), repeated(3, full)}},
    {"an empty first segment", {{}, repeated(3, 0)}},
    {"an empty middle segment", {repeated(2, 0), {}, repeated(2, 0)}},
    {"empty segments only", {{}, {}, {}}},
    {"16 segments, a table of 9 words", std::vector<words>(16, repeated(2, full))},
  };
  for (auto& [what, segs] : cases)
    BOOST_TEST_CONTEXT(what) {
      BOOST_TEST(soma_packed(segs) == capnp_packed(segs));
    }
}

BOOST_AUTO_TEST_CASE(no_segment_is_refused) {
  std::string out = "kept";
  BOOST_CHECK_EXCEPTION(
    soma::detail::append_packed(out, kj::ArrayPtr<const kj::ArrayPtr<const capnp::word>>{}),
    std::invalid_argument, [](const std::invalid_argument& e) {
      return std::string{e.what()} == "a Cap'n Proto message has at least one segment";
    });
  BOOST_TEST(out == "kept");
}

BOOST_AUTO_TEST_CASE(a_message_appends_after_what_the_string_held) {
  // A record as the store keeps one, built in a first segment of 4 words
  // so that its list goes to a second.
  capnp::MallocMessageBuilder msg{4, capnp::AllocationStrategy::FIXED_SIZE};
  auto r = msg.initRoot<soma::schema::Record>();
  r.setForward(41);
  r.setTookUs(-7);
  r.setWhen(1765100000);
  auto values = r.initValues(2);
  values[0].setKey("loss.value");
  values[1].setKeyAt(3);
  BOOST_TEST(msg.getSegmentsForOutput().size() >= 2u);
  std::string out = "seal";
  soma::detail::append_packed(out, msg);
  std::vector<words> segs;
  for (auto s : msg.getSegmentsForOutput())
    segs.emplace_back(s.begin(), s.end());
  BOOST_TEST(out == "seal" + capnp_packed(segs));
}

BOOST_AUTO_TEST_SUITE_END()
