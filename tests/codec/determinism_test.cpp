#include <boost/test/unit_test.hpp>

#include <chrono>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>
#include <sys/mman.h>
#include <span>

#include <capnp/serialize.h>
#include <kj/array.h>

#include "../store/child.hpp"
#include "canonical.hpp"
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

// What encode makes of `x` through codec<T>::write, as of every value that
// is not one run: its writes recorded, then laid out in canonical form
// (the general path).
template <class T>
std::string written(const T& x) {
  return soma::detail::encode_value(soma::codec<T>::name(), &soma::detail::write_erased<T>, &x);
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
  // encode writes a string or byte vector straight into the message (its
  // bytes copied once); its codec's writer goes the general path. Both give
  // the same bytes.
  for (std::size_t n : {0ul, 1ul, 5ul, 7ul, 8ul, 9ul, 65535ul, 65536ul, 65537ul, 1ul << 20, (1ul << 20) + 3}) {
    std::string s(n, '\0');
    for (std::size_t i = 0; i < n; ++i)
      s[i] = static_cast<char>(i * 31 % 251);
    std::vector<std::byte> b(n);
    std::memcpy(b.data(), s.data(), n);
    std::vector<std::uint8_t> u(s.begin(), s.end());
    auto bytes = soma::encode(s);
    BOOST_TEST(bytes == written(s), n << " bytes");
    BOOST_TEST(soma_test::canonical(bytes), n << " bytes");
    BOOST_TEST(soma::decode<std::string>(bytes) == s, n << " bytes");
    BOOST_TEST(soma::encode(b) == written(b), n << " bytes");
    BOOST_TEST(soma::encode(u) == written(u), n << " bytes");
    BOOST_TEST(soma::encode(u) == soma::encode(b), n << " bytes");
    BOOST_TEST((soma::decode<std::vector<std::byte>>(soma::encode(b)) == b), n << " bytes");
  }
  // Bytes at any address: a view into the middle of a string.
  std::string backing(65538, 'y');
  auto odd = std::string_view{backing}.substr(1);
  BOOST_TEST(soma::detail::encode_bytes("string", odd) == written(std::string{odd}));
}

namespace {

// n numbers of each kind, with the awkward ones among them: negative,
// the largest, NaN, -0.0 (which is not all zero bits), infinity.
struct number_runs {
  std::vector<std::int64_t> ints;
  std::vector<std::uint64_t> uints;
  std::vector<double> doubles;
};

number_runs numbers(std::size_t n) {
  number_runs out{std::vector<std::int64_t>(n), std::vector<std::uint64_t>(n), std::vector<double>(n)};
  for (std::size_t k = 0; k < n; ++k) {
    out.ints[k] = k % 3 == 0 ? -static_cast<std::int64_t>(k * 7919) : static_cast<std::int64_t>(k);
    out.uints[k] = k % 4 == 1 ? std::numeric_limits<std::uint64_t>::max() : k * 0x9E3779B97F4A7C15ull;
    out.doubles[k] = k % 5 == 1   ? -0.0
                     : k % 7 == 2 ? std::numeric_limits<double>::quiet_NaN()
                     : k % 11 == 3 ? -std::numeric_limits<double>::infinity()
                                   : static_cast<double>(k) * 0.25 - 3;
  }
  return out;
}

// Whether two vectors hold the same bits (NaN is not equal to itself).
template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

} // namespace

BOOST_AUTO_TEST_CASE(a_vector_of_numbers_encodes_to_the_bytes_its_codec_writes_at_every_size) {
  // encode writes a vector of int64, uint64 or double straight into the
  // message (its numbers copied once), as it does a string.
  for (std::size_t n : {0ul, 1ul, 2ul, 8191ul, 8192ul, 8193ul, 1ul << 17, (1ul << 17) + 3}) {
    auto x = numbers(n);
    auto ints = soma::encode(x.ints);
    auto uints = soma::encode(x.uints);
    auto doubles = soma::encode(x.doubles);
    BOOST_TEST(ints == written(x.ints), n << " int64");
    BOOST_TEST(uints == written(x.uints), n << " uint64");
    BOOST_TEST(doubles == written(x.doubles), n << " float64");
    for (auto* bytes : {&ints, &uints, &doubles})
      BOOST_TEST(soma_test::canonical(*bytes), n << " numbers");
    BOOST_TEST(same_bits(soma::decode<std::vector<std::int64_t>>(ints), x.ints), n << " int64");
    BOOST_TEST(same_bits(soma::decode<std::vector<std::uint64_t>>(uints), x.uints), n << " uint64");
    BOOST_TEST(same_bits(soma::decode<std::vector<double>>(doubles), x.doubles), n << " float64");
  }
}

BOOST_AUTO_TEST_CASE(a_run_written_straight_pads_its_type_name_as_the_general_path_does) {
  // The type name is a Text: its bytes, a NUL, then zeros to a whole word.
  // Every length of name from 0 to 17 (one to three words), both runs.
  auto x = numbers(3);
  std::string s = "some bytes";
  for (std::size_t len = 0; len <= 17; ++len) {
    std::string name(len, 'n');
    auto by_general = [&](const auto& value) {
      using T = std::decay_t<decltype(value)>;
      return soma::detail::encode_value(name, &soma::detail::write_erased<T>, &value);
    };
    BOOST_TEST(soma::detail::encode_bytes(name, s) == by_general(s), len);
    BOOST_TEST(soma::detail::encode_numbers(name, x.ints) == by_general(x.ints), len);
    BOOST_TEST(soma::detail::encode_numbers(name, x.uints) == by_general(x.uints), len);
    BOOST_TEST(soma::detail::encode_numbers(name, x.doubles) == by_general(x.doubles), len);
  }
}

BOOST_AUTO_TEST_CASE(a_run_decodes_straight_from_its_bytes_at_any_alignment_as_any_value_does) {
  // decode reads a run where encode wrote it (detail::run_in), one copy, at
  // any address; the general reader (detail::decode_value, what every other
  // value takes) gives the same value.
  auto general = [](std::string_view bytes, const auto& like) {
    using T = std::decay_t<decltype(like)>;
    std::optional<T> out;
    soma::detail::decode_value(bytes, soma::codec<T>::name(), &soma::detail::read_erased<T>, &out);
    return std::move(*out);
  };
  for (std::size_t n : {0ul, 1ul, 7ul, 8ul, 9ul, 4096ul, (1ul << 17) + 3}) {
    auto x = numbers(n);
    std::string s(n, '\0');
    for (std::size_t i = 0; i < n; ++i)
      s[i] = static_cast<char>(i * 13 % 256);
    std::vector<std::byte> b(n);
    std::memcpy(b.data(), s.data(), n);
    for (std::size_t offset = 0; offset < 8; ++offset) {
      auto shifted = [&](const std::string& bytes) {
        auto out = std::string(offset, 'x') + bytes;
        return out;
      };
      auto es = shifted(soma::encode(s)), eb = shifted(soma::encode(b)), ei = shifted(soma::encode(x.ints)),
           eu = shifted(soma::encode(x.uints)), ed = shifted(soma::encode(x.doubles));
      auto at = [&](const std::string& e) { return std::string_view{e}.substr(offset); };
      // Every run is read straight, wherever it is.
      BOOST_REQUIRE(soma::detail::run_in(at(es), "string", soma::value_kind::data));
      BOOST_REQUIRE(soma::detail::run_in(at(eb), soma::codec<std::vector<std::byte>>::name(),
                                         soma::value_kind::data));
      BOOST_REQUIRE(soma::detail::run_in(at(ei), "vector<int64>", soma::value_kind::int64s));
      BOOST_REQUIRE(soma::detail::run_in(at(eu), "vector<uint64>", soma::value_kind::uint64s));
      BOOST_REQUIRE(soma::detail::run_in(at(ed), "vector<float64>", soma::value_kind::float64s));
      std::vector<std::uint8_t> u(s.begin(), s.end());
      auto eu8 = shifted(soma::encode(u));
      BOOST_REQUIRE(soma::detail::run_in(at(eu8), soma::codec<std::vector<std::uint8_t>>::name(),
                                         soma::value_kind::data));
      BOOST_TEST((soma::decode<std::vector<std::uint8_t>>(at(eu8)) == u), n << " at +" << offset);
      BOOST_TEST(soma::decode<std::string>(at(es)) == s, n << " at +" << offset);
      BOOST_TEST(general(at(es), s) == s, n << " at +" << offset);
      BOOST_TEST((soma::decode<std::vector<std::byte>>(at(eb)) == b), n << " at +" << offset);
      BOOST_TEST(same_bits(soma::decode<std::vector<std::int64_t>>(at(ei)), x.ints), n << " at +" << offset);
      BOOST_TEST(same_bits(soma::decode<std::vector<std::uint64_t>>(at(eu)), x.uints), n << " at +" << offset);
      BOOST_TEST(same_bits(soma::decode<std::vector<double>>(at(ed)), x.doubles), n << " at +" << offset);
      BOOST_TEST(same_bits(general(at(ed), x.doubles), x.doubles), n << " at +" << offset);
    }
  }
}

BOOST_AUTO_TEST_CASE(bytes_not_laid_out_as_encode_lays_a_run_go_to_the_general_reader) {
  // A run's bytes that are not exactly encode's (a padding byte not zero, a
  // list of another element size, another type's name, a word more) are
  // not read straight: the general reader reads them, or says what is wrong.
  std::string s = "five!"; // 5 bytes: 3 bytes of padding after them
  auto bytes = soma::encode(s);
  BOOST_REQUIRE(soma::detail::run_in(bytes, "string", soma::value_kind::data));
  auto padded = bytes;
  padded.back() = '\x01'; // Cap'n Proto reads past padding; the run's reader does not take it
  BOOST_TEST(!soma::detail::run_in(padded, "string", soma::value_kind::data));
  BOOST_TEST(soma::decode<std::string>(padded) == s);
  BOOST_TEST(!soma::detail::run_in(bytes, "string", soma::value_kind::float64s));
  BOOST_TEST(!soma::detail::run_in(bytes, "strinG", soma::value_kind::data));
  BOOST_TEST(!soma::detail::run_in(bytes + std::string(8, '\0'), "string", soma::value_kind::data));
  BOOST_TEST(!soma::detail::run_in(bytes.substr(0, bytes.size() - 8), "string", soma::value_kind::data));
  // Shorter than any run's message: the table, three pointers, the tag and
  // the list's pointer alone are 48 bytes.
  for (std::size_t size : {0ul, 8ul, 16ul, 48ul})
    BOOST_TEST(!soma::detail::run_in(std::string(size, '\0'), "", soma::value_kind::data), size);
  // The list's count one more or one less than the run holds: the run then
  // does not fill its words as the count says (the check that keeps the
  // run's view within the bytes).
  auto list_at = bytes.size() - 2 * 8; // the list's pointer, before the run's one word
  auto recount = [&](std::uint64_t count) {
    auto changed = bytes;
    std::uint64_t w;
    std::memcpy(&w, changed.data() + list_at, 8);
    w = (w & ((std::uint64_t{1} << 35) - 1)) | count << 35;
    std::memcpy(changed.data() + list_at, &w, 8);
    return changed;
  };
  BOOST_REQUIRE(soma::detail::run_in(recount(5), "string", soma::value_kind::data)); // as written
  BOOST_TEST(!soma::detail::run_in(recount(9), "string", soma::value_kind::data));
  BOOST_TEST(!soma::detail::run_in(recount(4), "string", soma::value_kind::data));
  // The tag word with more than the tag in it.
  auto tagged = bytes;
  tagged[list_at - 8 + 3] = '\x01';
  BOOST_TEST(!soma::detail::run_in(tagged, "string", soma::value_kind::data));
  // Names of every length from 0 to 17 are found, and only the right one.
  for (std::size_t len = 0; len <= 17; ++len) {
    std::string name(len, 'n');
    auto named = soma::detail::encode_bytes(name, s);
    BOOST_TEST(soma::detail::run_in(named, name, soma::value_kind::data).value_or("?") == s, len);
    BOOST_TEST(!soma::detail::run_in(named, name + "n", soma::value_kind::data), len);
  }
  try {
    (void)soma::decode<std::vector<double>>(bytes);
    BOOST_FAIL("a string's bytes decoded as a vector<double>");
  } catch (const soma::codec_error& e) {
    BOOST_TEST(std::string{e.what()} == "these bytes hold a string, not a vector<float64>");
  }
  try {
    (void)soma::decode<std::string>(bytes.substr(0, bytes.size() - 8));
    BOOST_FAIL("truncated bytes decoded");
  } catch (const soma::codec_error& e) {
    BOOST_TEST(std::string{e.what()}.starts_with("cannot decode a string: the bytes are truncated or damaged"),
               e.what());
  }
}

BOOST_AUTO_TEST_CASE(a_run_read_straight_is_what_the_general_reader_reads_whatever_byte_changes) {
  // Every byte of a run's message changed three ways: decode (which reads a
  // run straight when its bytes are laid out as encode lays them) and the
  // general reader either give the same value or both refuse.
  auto check = [](const auto& value) {
    using T = std::decay_t<decltype(value)>;
    auto bytes = soma::encode(value);
    std::size_t straight = 0;
    for (std::size_t i = 0; i < bytes.size(); ++i)
      for (unsigned char flip : {0x01, 0x80, 0xff}) {
        auto changed = bytes;
        changed[i] = static_cast<char>(changed[i] ^ flip);
        straight += soma::detail::run_in(changed, soma::codec<T>::name(), soma::detail::run_kind<T>) ? 1 : 0;
        std::optional<T> by_decode, by_reader;
        try {
          by_decode = soma::decode<T>(changed);
        } catch (const soma::codec_error&) {
        }
        try {
          soma::detail::decode_value(changed, soma::codec<T>::name(), &soma::detail::read_erased<T>, &by_reader);
        } catch (const soma::codec_error&) {
        }
        BOOST_TEST(by_decode.has_value() == by_reader.has_value(), "byte " << i << " ^ " << int{flip});
        if (by_decode && by_reader)
          BOOST_TEST(std::memcmp(by_decode->data(), by_reader->data(), by_decode->size() * sizeof(value[0])) == 0,
                     "byte " << i << " ^ " << int{flip});
      }
    return straight;
  };
  // The runs' own bytes may change and still be read straight; nothing else.
  BOOST_TEST(check(std::string("eleven char")) == 11u * 3);
  BOOST_TEST(check(std::vector<std::int64_t>{1, -2, 3}) == 24u * 3);
  BOOST_TEST(check(std::vector<std::uint64_t>{7}) == 8u * 3);
  BOOST_TEST(check(std::vector<double>{0.5, -0.0}) == 16u * 3);
}

namespace {

// `n` elements of T in memory that is mapped but never touched (no page is
// made): the run refusals below come before a byte of the run is read.
template <class T>
class untouched {
public:
  explicit untouched(std::size_t n) : n_(n) {
    p_ = mmap(nullptr, bytes(), PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    BOOST_REQUIRE(p_ != MAP_FAILED);
  }
  ~untouched() { munmap(p_, bytes()); }
  untouched(const untouched&) = delete;
  untouched& operator=(const untouched&) = delete;
  [[nodiscard]] std::span<const T> span() const { return {static_cast<const T*>(p_), n_}; }

private:
  [[nodiscard]] std::size_t bytes() const { return n_ * sizeof(T); }
  std::size_t n_;
  void* p_;
};

} // namespace

BOOST_AUTO_TEST_CASE(a_run_too_large_for_decode_is_refused_naming_both_sizes) {
  // 2^27 doubles are 1 GiB; with the 64 bytes around them (segment table,
  // pointers, the 16-byte name, the tag), more than
  // codec_limits::max_bytes.
  // What encoding `xs` said when it refused, or "encoded" when it did not.
  auto refusal = [](const auto& xs) -> std::string {
    using E = typename std::decay_t<decltype(xs)>::value_type;
    try {
      (void)soma::detail::encode_numbers(soma::codec<std::vector<E>>::name(), xs);
      return "encoded";
    } catch (const soma::codec_error& e) {
      return e.what();
    }
  };
  untouched<double> gib(std::size_t{1} << 27);
  BOOST_TEST(refusal(gib.span())
             == "cannot encode a vector<float64>: its 1073741888 bytes are more than decode accepts "
                "(soma::codec_limits::max_bytes, 1073741824)");
  // 2^29 numbers are one more than a Cap'n Proto list holds: said first.
  untouched<std::int64_t> over(std::size_t{1} << 29);
  BOOST_TEST(refusal(over.span())
             == "cannot encode a vector<int64>: a list of 536870912 is more than Cap'n Proto holds in "
                "one list (2^29 - 1)");
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
