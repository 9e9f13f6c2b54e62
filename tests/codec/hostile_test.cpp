#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <variant>
#include <vector>

#include <capnp/message.h>
#include <capnp/serialize.h>
#include <sys/mman.h>

#include "samples.hpp"
#include "soma/schema/value.capnp.h"

namespace {

// The message of `e`, when decoding `bytes` as T throws codec_error.
template <class T>
std::string error_of(std::string_view bytes) {
  try {
    (void)soma::decode<T>(bytes);
  } catch (const soma::codec_error& e) {
    return e.what();
  }
  return "(no error)";
}

bool contains(const std::string& s, std::string_view part) {
  return s.find(part) != std::string::npos;
}

// What decoding damaged bytes gave: a value, a codec_error, or something
// else (a failure; a crash ends the test).
struct outcomes {
  int decoded = 0;
  int refused = 0;
  int other = 0;
};

template <class T>
void try_decode(std::string_view bytes, outcomes& out) {
  try {
    (void)soma::decode<T>(bytes);
    ++out.decoded;
  } catch (const soma::codec_error&) {
    ++out.refused;
  } catch (const std::exception& e) {
    ++out.other;
    BOOST_ERROR("decoding " << soma::codec<T>::name() << " threw something else: " << e.what());
  }
}

using map_of_lists = std::map<std::string, std::vector<int>>;
using twice = std::optional<std::optional<int>>;
using either = std::variant<std::monostate, std::string, std::vector<double>>;

// Decodes `bytes` as every type the fuzzing tries.
outcomes decode_as_anything(std::string_view bytes, outcomes out = {}) {
  try_decode<soma_test::Shape>(bytes, out);
  try_decode<map_of_lists>(bytes, out);
  try_decode<std::vector<std::string>>(bytes, out);
  try_decode<std::string>(bytes, out);
  try_decode<twice>(bytes, out);
  try_decode<either>(bytes, out);
  try_decode<std::int8_t>(bytes, out);
  try_decode<std::vector<std::monostate>>(bytes, out);
  return out;
}

std::vector<std::string> valid_encodings() {
  return {soma::encode(soma_test::Shape{"tri", {{0, 0}, {1, 0}, {0, 1}}, 3}),
          soma::encode(map_of_lists{{"a", {1, 2}}, {"bb", {}}, {"c", {-3}}}),
          soma::encode(std::vector<std::string>{"x", std::string("\0y", 2), ""}),
          soma::encode(std::string("a string of some length")),
          soma::encode(twice{std::optional<int>{}}),
          soma::encode(either{std::vector<double>{1, 2}}),
          soma::encode(std::int8_t{-3}),
          soma::encode(std::vector<std::monostate>(4))};
}

// A whole message as bytes, built by hand with Cap'n Proto.
std::string bytes_of(capnp::MessageBuilder& msg) {
  auto words = capnp::messageToFlatArray(msg);
  auto bytes = words.asBytes();
  return {reinterpret_cast<const char*>(bytes.begin()), bytes.size()};
}

// N optionals around a Leaf.
template <int N, class Leaf = int>
struct nest {
  using type = std::optional<typename nest<N - 1, Leaf>::type>;
  static type make(Leaf x = Leaf{7}) { return type{nest<N - 1, Leaf>::make(x)}; }
};
template <class Leaf>
struct nest<0, Leaf> {
  using type = Leaf;
  static type make(Leaf x = Leaf{7}) { return x; }
};

// A hand-built EncodedValue of `levels` nested one-element lists around an
// int64, named like nest<levels>::type.
std::string nested_by_hand(int levels) {
  capnp::MallocMessageBuilder msg;
  auto root = msg.initRoot<soma::schema::EncodedValue>();
  std::string name = "int64";
  for (int i = 0; i < levels; ++i)
    name = "optional<" + name + ">";
  root.setType(name);
  auto v = root.initValue();
  for (int i = 0; i < levels; ++i)
    v = v.initList(1)[0];
  v.setInt64(7);
  return bytes_of(msg);
}

} // namespace

BOOST_AUTO_TEST_SUITE(hostile)

BOOST_AUTO_TEST_CASE(the_wrong_type_is_named_both_ways) {
  BOOST_TEST(error_of<std::string>(soma::encode(std::vector<double>{1.5}))
             == "these bytes hold a vector<float64>, not a string");
  BOOST_TEST(error_of<int>(soma::encode(std::string("7"))) == "these bytes hold a string, not an int64");
  BOOST_TEST(error_of<unsigned>(soma::encode(-1)) == "these bytes hold an int64, not a uint64");
  BOOST_TEST((error_of<std::map<std::string, int>>(soma::encode(std::map<int, int>{}))
              == "these bytes hold a map<int64,int64>, not a map<string,int64>"));
  BOOST_TEST(error_of<std::vector<std::string>>(soma::encode(std::vector<std::byte>{}))
             == "these bytes hold a bytes, not a vector<string>");
}

BOOST_AUTO_TEST_CASE(integers_out_of_range_are_refused) {
  auto e = error_of<std::int8_t>(soma::encode(std::int64_t{1000}));
  BOOST_TEST(contains(e, "the int64 1000 is out of range for int8 (-128 to 127)"), e);
  e = error_of<std::uint8_t>(soma::encode(std::uint64_t{256}));
  BOOST_TEST(contains(e, "the uint64 256 is out of range for uint8 (0 to 255)"), e);
  e = error_of<int>(soma::encode(std::numeric_limits<std::int64_t>::min()));
  BOOST_TEST(contains(e, "out of range for int32"), e);
  e = error_of<std::vector<std::int8_t>>(soma::encode(std::vector<int>{1, 200}));
  BOOST_TEST(contains(e, "the int64 200 is out of range for int8"), e);
  e = error_of<char>(soma::encode(300));
  BOOST_TEST(contains(e, "out of range for char"), e);
  e = error_of<std::byte>(soma::encode(256u));
  BOOST_TEST(contains(e, "out of range for uint8"), e);
  e = error_of<float>(soma::encode(1e300));
  BOOST_TEST(contains(e, "out of range for float"), e);
  using shorts = std::map<std::string, short>;
  e = error_of<shorts>(soma::encode(std::map<std::string, int>{{"k", 1 << 20}}));
  BOOST_TEST(contains(e, "out of range for int16"), e);
}

BOOST_AUTO_TEST_CASE(too_few_or_too_many_bytes) {
  BOOST_TEST(contains(error_of<int>(""), "0 bytes is not an encoded value"));
  BOOST_TEST(contains(error_of<int>(std::string(8, '\0')), "8 bytes is not an encoded value"));
  auto bytes = soma::encode(42);
  BOOST_TEST(contains(error_of<int>(bytes + std::string(8, '\0')),
                      "8 bytes follow the encoded value"));
  BOOST_TEST(contains(error_of<int>(bytes.substr(0, bytes.size() - 3)),
                      "is not an encoded value"));
}

BOOST_AUTO_TEST_CASE(every_prefix_of_an_encoding_is_refused_never_a_crash) {
  for (auto& bytes : valid_encodings()) {
    BOOST_TEST(decode_as_anything(bytes).decoded == 1);
    outcomes prefixes;
    for (std::size_t n = 0; n < bytes.size(); ++n) {
      prefixes = decode_as_anything(std::string_view{bytes}.substr(0, n), prefixes);
      std::string shifted = " " + bytes.substr(0, n); // and unaligned
      prefixes = decode_as_anything(std::string_view{shifted}.substr(1), prefixes);
    }
    // The segment table says how long the message is: no prefix decodes.
    BOOST_TEST(prefixes.decoded == 0);
    BOOST_TEST(prefixes.other == 0);
    BOOST_TEST(prefixes.refused == static_cast<int>(bytes.size()) * 2 * 8);
  }
}

BOOST_AUTO_TEST_CASE(random_garbage_only_ever_gives_codec_error) {
  std::mt19937_64 random{20240611};
  outcomes all;
  for (int i = 0; i < 3000; ++i) {
    std::size_t words = random() % 40;
    std::string bytes(words * 8 + (i % 4 == 0 ? random() % 8 : 0), '\0');
    for (auto& c : bytes)
      c = static_cast<char>(random());
    // Most garbage fails at the segment table; half of it gets a valid one
    // so that Cap'n Proto's pointer checks and ours are reached.
    if (i % 2 == 0 && words >= 2) {
      std::uint32_t table[2] = {0, static_cast<std::uint32_t>(words - 1)};
      std::memcpy(bytes.data(), table, sizeof table);
    }
    all = decode_as_anything(bytes, all);
  }
  BOOST_TEST(all.other == 0);
  BOOST_TEST(all.decoded + all.refused == 3000 * 8);
}

BOOST_AUTO_TEST_CASE(flipped_bytes_in_real_encodings_only_ever_give_codec_error) {
  std::mt19937_64 random{7};
  auto valid = valid_encodings();
  outcomes all;
  for (int i = 0; i < 5000; ++i) {
    auto bytes = valid[i % valid.size()];
    for (int flips = 1 + i % 3; flips > 0; --flips)
      bytes[random() % bytes.size()] ^= static_cast<char>(1 + random() % 255);
    all = decode_as_anything(bytes, all);
  }
  BOOST_TEST(all.other == 0);
  BOOST_TEST(all.decoded + all.refused == 5000 * 8);
  BOOST_TEST_MESSAGE(all.decoded << " decodes of 5000 damaged encodings as 8 types gave a value "
                                    "(a flipped bit inside a number is still a number)");
}

BOOST_AUTO_TEST_CASE(the_right_name_around_the_wrong_shape) {
  capnp::MallocMessageBuilder msg;
  auto root = msg.initRoot<soma::schema::EncodedValue>();
  root.setType("int64");
  root.initValue().initList(2);
  auto e = error_of<int>(bytes_of(msg));
  BOOST_TEST(e == "cannot decode an int64: the bytes are malformed: expected an int64, found a list");
  BOOST_TEST(contains(error_of<std::string>(nested_by_hand(0)), "these bytes hold an int64"));
}

BOOST_AUTO_TEST_CASE(nesting_is_limited_the_same_way_both_ways) {
  static_assert(soma::codec_limits::max_depth == 64);
  using deepest = nest<64>::type;
  using too_deep = nest<65>::type;
  BOOST_TEST((soma::decode<deepest>(soma::encode(nest<64>::make())) == nest<64>::make()));
  BOOST_TEST((soma::decode<deepest>(nested_by_hand(64)) == nest<64>::make()));
  auto e = std::string{};
  try {
    (void)soma::encode(nest<65>::make());
  } catch (const soma::codec_error& x) {
    e = x.what();
  }
  BOOST_TEST(contains(e, "nested deeper than 64"), e);
  e = error_of<too_deep>(nested_by_hand(65));
  BOOST_TEST(contains(e, "nested deeper than"), e);
  // Bytes and lists of numbers are a level too.
  BOOST_CHECK_NO_THROW((void)soma::encode(nest<63, std::string>::make("x")));
  BOOST_CHECK_THROW((void)soma::encode(nest<64, std::string>::make("x")), soma::codec_error);
  BOOST_CHECK_THROW((void)soma::encode(nest<64, std::vector<double>>::make({1.0})),
                    soma::codec_error);
}

BOOST_AUTO_TEST_CASE(a_list_of_elements_that_take_no_bytes_is_refused) {
  // Canonical form shrinks structs that hold nothing to no bytes at all, so
  // a list of them claims many elements in a few words: a hand-made
  // amplification that encode never writes.
  auto empty_values = [](unsigned n) {
    capnp::MallocMessageBuilder msg;
    auto root = msg.initRoot<soma::schema::EncodedValue>();
    root.setType("vector<none>");
    root.initValue().initList(n);
    auto words = capnp::canonicalize(root.asReader());
    std::string bytes(8, '\0');
    bytes[4] = static_cast<char>(words.size());
    bytes.append(reinterpret_cast<const char*>(words.begin()), words.size() * 8);
    return bytes;
  };
  auto few = empty_values(3);
  auto e = error_of<std::vector<std::monostate>>(few);
  BOOST_TEST(contains(e, "a list of 3 elements that take no bytes"), e);
  auto many = empty_values(1 << 18);
  BOOST_REQUIRE_EQUAL(many.size(), few.size()); // 72 bytes either way
  e = error_of<std::vector<std::monostate>>(many);
  BOOST_TEST(contains(e, "the bytes point at more data than they hold"), e);
}

BOOST_AUTO_TEST_CASE(more_than_max_bytes_is_refused_before_reading) {
  auto size = soma::codec_limits::max_bytes + 8;
  void* p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  BOOST_REQUIRE(p != MAP_FAILED);
  auto e = error_of<std::string>(std::string_view{static_cast<const char*>(p), size});
  ::munmap(p, size);
  BOOST_TEST(contains(e, "is more than decode accepts"), e);
}

BOOST_AUTO_TEST_SUITE_END()
