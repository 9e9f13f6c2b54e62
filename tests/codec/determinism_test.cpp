#include <boost/test/unit_test.hpp>

#include <chrono>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include <capnp/serialize.h>
#include <kj/array.h>

#include "../store/child.hpp"
#include "samples.hpp"

using namespace std::chrono_literals;

namespace {

// What codec_child prints: "label hex" lines up to "end".
std::vector<std::pair<std::string, std::string>> child_encodings(const char* order) {
  soma_test::child c{{SOMA_CODEC_CHILD, order}};
  std::vector<std::pair<std::string, std::string>> out;
  while (auto line = c.line(30s)) {
    if (*line == "end")
      break;
    auto space = line->find(' ');
    BOOST_REQUIRE(space != std::string::npos);
    out.emplace_back(line->substr(0, space), line->substr(space + 1));
  }
  BOOST_TEST(c.wait() == 0);
  return out;
}

std::vector<std::string> keys_in_iteration_order(
  const std::unordered_map<std::string, std::int64_t>& m) {
  std::vector<std::string> out;
  for (auto& kv : m)
    out.push_back(kv.first);
  return out;
}

// What encode made of `x` through codec<T>::write, as for every value:
// written into a builder, then copied into its canonical form.
template <class T>
std::string written(const T& x) {
  return soma::detail::encode_value(soma::codec<T>::name(), &soma::detail::write_erased<T>, &x);
}

bool canonical(const std::string& bytes) {
  auto words = kj::heapArray<capnp::word>(bytes.size() / sizeof(capnp::word));
  std::memcpy(words.begin(), bytes.data(), bytes.size());
  capnp::ReaderOptions unlimited;
  unlimited.traversalLimitInWords = words.size() * 2;
  capnp::FlatArrayMessageReader reader{words, unlimited};
  return reader.isCanonical();
}

} // namespace

BOOST_AUTO_TEST_SUITE(determinism)

BOOST_AUTO_TEST_CASE(the_wire_format_is_pinned) {
  // A segment table (one segment of n words), the root EncodedValue {type,
  // value}, the type name, then the Value. Little-endian on every host.
  BOOST_TEST(soma_test::hex(soma::encode(std::int64_t{1}))
             == "0000000006000000" "0000000000000200" "0500000032000000" "0400000002000000"
                "696e743634000000" "0300000000000000" "0100000000000000");
  BOOST_TEST(soma_test::hex(soma::encode(std::string("hi")))
             == "0000000007000000" "0000000000000200" "050000003a000000" "0400000001000100"
                "737472696e670000" "0600000000000000" "0100000012000000" "6869000000000000");
}

BOOST_AUTO_TEST_CASE(encodings_are_canonical_cap_n_proto) {
  for (auto& [label, hex] : soma_test::sample_encodings(false)) {
    std::string bytes;
    for (std::size_t i = 0; i < hex.size(); i += 2)
      bytes += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
    auto words = kj::heapArray<capnp::word>(bytes.size() / sizeof(capnp::word));
    std::memcpy(words.begin(), bytes.data(), bytes.size());
    capnp::FlatArrayMessageReader reader{words};
    BOOST_TEST(reader.isCanonical(), label);
  }
}

BOOST_AUTO_TEST_CASE(an_unordered_map_gives_the_same_bytes_whatever_its_order) {
  auto a = soma_test::words(false);
  auto b = soma_test::words(true);
  BOOST_REQUIRE(a == b);
  // The premise: the two iterate in different orders.
  BOOST_REQUIRE(keys_in_iteration_order(a) != keys_in_iteration_order(b));
  BOOST_TEST(soma::encode(a) == soma::encode(b));
  std::unordered_map<std::string, std::int64_t> c;
  c.max_load_factor(0.2f);
  for (auto& kv : b)
    c.insert(kv);
  BOOST_TEST(soma::encode(a) == soma::encode(c));
}

BOOST_AUTO_TEST_CASE(keys_that_encode_alike_do_not_make_the_order_show) {
  // NaN != NaN, so a map can hold two; their bytes are the same, and only
  // their values can order them.
  auto nan = std::numeric_limits<double>::quiet_NaN();
  std::unordered_map<double, int> one, other;
  one.emplace(nan, 1);
  one.emplace(nan, 2);
  other.emplace(nan, 2);
  other.emplace(nan, 1);
  BOOST_REQUIRE_EQUAL(one.size(), 2u);
  BOOST_TEST(soma::encode(one) == soma::encode(other));
}

BOOST_AUTO_TEST_CASE(another_process_encodes_every_sample_to_the_same_bytes) {
  auto here = soma_test::sample_encodings(false);
  for (const char* order : {"forward", "reversed"}) {
    auto there = child_encodings(order);
    BOOST_REQUIRE_EQUAL(there.size(), here.size());
    for (std::size_t i = 0; i < here.size(); ++i) {
      BOOST_TEST(there[i].first == here[i].first);
      BOOST_TEST(there[i].second == here[i].second, here[i].first << " (" << order << ")");
    }
  }
}

BOOST_AUTO_TEST_CASE(a_string_or_byte_vector_encodes_to_the_bytes_its_codec_writes_at_every_size) {
  // From 64 KiB up, encode has the builder refer to a string's or byte
  // vector's bytes where they are (copied once); below, as every other
  // value, they are written into the builder first (copied twice).
  for (std::size_t n : {0ul, 5ul, 65535ul, 65536ul, 65537ul, 1ul << 20, (1ul << 20) + 3}) {
    std::string s(n, '\0');
    for (std::size_t i = 0; i < n; ++i)
      s[i] = static_cast<char>(i * 31 % 251);
    std::vector<std::byte> b(n);
    std::memcpy(b.data(), s.data(), n);
    std::vector<std::uint8_t> u(s.begin(), s.end());
    // The premise from 64 KiB up: heap buffers, 8-byte aligned, so referred to.
    if (n >= 65536)
      BOOST_REQUIRE(reinterpret_cast<std::uintptr_t>(s.data()) % 8 == 0
                    && reinterpret_cast<std::uintptr_t>(b.data()) % 8 == 0
                    && reinterpret_cast<std::uintptr_t>(u.data()) % 8 == 0);
    auto bytes = soma::encode(s);
    BOOST_TEST(bytes == written(s), n << " bytes");
    BOOST_TEST(canonical(bytes), n << " bytes");
    BOOST_TEST(soma::decode<std::string>(bytes) == s, n << " bytes");
    BOOST_TEST(soma::encode(b) == written(b), n << " bytes");
    BOOST_TEST(soma::encode(u) == written(u), n << " bytes");
    BOOST_TEST(soma::encode(u) == soma::encode(b), n << " bytes");
    BOOST_TEST((soma::decode<std::vector<std::byte>>(soma::encode(b)) == b), n << " bytes");
  }
  // Bytes at an address not 8-byte aligned are written, not referred to.
  std::string backing(65538, 'y');
  auto odd = std::string_view{backing}.substr(1);
  BOOST_TEST(soma::detail::encode_bytes("string", odd) == written(std::string{odd}));
}

BOOST_AUTO_TEST_CASE(bytes_at_any_alignment_decode) {
  auto bytes = soma::encode(soma_test::Shape{"s", {{1, 2}}, 4});
  for (std::size_t offset = 0; offset < 8; ++offset) {
    std::string shifted(offset, 'x');
    shifted += bytes;
    auto s = soma::decode<soma_test::Shape>(std::string_view{shifted}.substr(offset));
    BOOST_TEST((s == soma_test::Shape{"s", {{1, 2}}, 4}));
  }
}

BOOST_AUTO_TEST_SUITE_END()
