#include <boost/test/unit_test.hpp>

#include <array>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

#include <capnp/message.h>
#include <capnp/serialize.h>

#include "soma/codec.hpp"
#include "soma/detail/undecodable.hpp"
#include "soma/schema/remote.capnp.h"
#include "soma/wire/slice.hpp"

namespace {

struct no_codec {};

// decode(encode(x)) == x, and the bytes name the type as expected.
template <class T>
void same_after_round_trip(const T& x) {
  auto bytes = soma::encode(x);
  BOOST_TEST((soma::decode<T>(bytes) == x), soma::codec<T>::name());
}

template <class T>
void limits_round_trip() {
  same_after_round_trip(std::numeric_limits<T>::min());
  same_after_round_trip(std::numeric_limits<T>::max());
  same_after_round_trip(T{0});
  same_after_round_trip(T{1});
}

std::uint64_t bits(double x) {
  return std::bit_cast<std::uint64_t>(x);
}

} // namespace

static_assert(soma::encodable<int>);
static_assert(soma::encodable<std::map<std::string, std::vector<std::optional<double>>>>);
static_assert(soma::encodable<std::tuple<>>);
static_assert(!soma::encodable<no_codec>);
static_assert(!soma::encodable<std::vector<no_codec>>);
static_assert(!soma::encodable<std::map<std::string, no_codec>>);
static_assert(!soma::encodable<std::optional<std::pair<int, no_codec>>>);
static_assert(!soma::encodable<long double>, "long double would lose precision on the wire");
static_assert(!soma::encodable<wchar_t>, "wchar_t differs between hosts");
static_assert(!soma::encodable<const char*>);

BOOST_AUTO_TEST_SUITE(round_trip)

BOOST_AUTO_TEST_CASE(names_are_portable_and_built_from_the_parts) {
  using soma::codec;
  BOOST_TEST(codec<bool>::name() == "bool");
  BOOST_TEST(codec<std::int8_t>::name() == "int64");
  BOOST_TEST(codec<long long>::name() == "int64");
  BOOST_TEST(codec<char>::name() == "int64");
  BOOST_TEST(codec<unsigned short>::name() == "uint64");
  BOOST_TEST(codec<char32_t>::name() == "uint64");
  BOOST_TEST(codec<float>::name() == "float64");
  BOOST_TEST(codec<double>::name() == "float64");
  BOOST_TEST(codec<std::string>::name() == "string");
  BOOST_TEST(codec<std::vector<std::byte>>::name() == "bytes");
  BOOST_TEST(codec<std::vector<std::uint8_t>>::name() == "bytes");
  BOOST_TEST(codec<std::vector<float>>::name() == "vector<float64>");
  BOOST_TEST((codec<std::map<std::string, int>>::name() == "map<string,int64>"));
  BOOST_TEST((codec<std::unordered_map<std::string, int>>::name() == "map<string,int64>"));
  BOOST_TEST(codec<std::optional<std::string>>::name() == "optional<string>");
  BOOST_TEST((codec<std::pair<int, bool>>::name() == "pair<int64,bool>"));
  BOOST_TEST((codec<std::tuple<int, std::string, double>>::name()
              == "tuple<int64,string,float64>"));
  BOOST_TEST(codec<std::tuple<>>::name() == "tuple<>");
  BOOST_TEST((codec<std::array<double, 3>>::name() == "array<float64,3>"));
  BOOST_TEST(codec<std::monostate>::name() == "none");
  BOOST_TEST((codec<std::variant<int, std::string>>::name() == "variant<int64,string>"));
  BOOST_TEST(codec<std::vector<std::vector<std::optional<int>>>>::name()
             == "vector<vector<optional<int64>>>");
}

BOOST_AUTO_TEST_CASE(bool_and_every_integer_type_at_its_limits) {
  same_after_round_trip(true);
  same_after_round_trip(false);
  limits_round_trip<signed char>();
  limits_round_trip<short>();
  limits_round_trip<int>();
  limits_round_trip<long>();
  limits_round_trip<long long>();
  limits_round_trip<unsigned char>();
  limits_round_trip<unsigned short>();
  limits_round_trip<unsigned>();
  limits_round_trip<unsigned long>();
  limits_round_trip<unsigned long long>();
  limits_round_trip<char8_t>();
  limits_round_trip<char16_t>();
  limits_round_trip<char32_t>();
  same_after_round_trip(std::numeric_limits<std::int64_t>::min());
  same_after_round_trip(std::numeric_limits<std::uint64_t>::max());
  for (int c = 0; c < 256; ++c)
    same_after_round_trip(static_cast<char>(c));
  same_after_round_trip(std::byte{0});
  same_after_round_trip(std::byte{255});
}

BOOST_AUTO_TEST_CASE(integers_of_one_sign_read_back_at_any_width) {
  BOOST_TEST(soma::decode<std::int8_t>(soma::encode(std::int64_t{-128})) == -128);
  BOOST_TEST(soma::decode<long long>(soma::encode(short{-5})) == -5);
  BOOST_TEST(soma::decode<std::uint16_t>(soma::encode(std::uint64_t{65535})) == 65535);
  BOOST_TEST(soma::decode<std::vector<std::int8_t>>(soma::encode(std::vector<long>{-1, 2}))
             == (std::vector<std::int8_t>{-1, 2}));
}

BOOST_AUTO_TEST_CASE(doubles_keep_every_bit) {
  for (double x : {0.0, -0.0, 0.1, -2.5, 1e300, std::numeric_limits<double>::max(),
                   std::numeric_limits<double>::lowest(), std::numeric_limits<double>::denorm_min(),
                   std::numeric_limits<double>::infinity(),
                   -std::numeric_limits<double>::infinity()}) {
    auto back = soma::decode<double>(soma::encode(x));
    BOOST_TEST(bits(back) == bits(x));
  }
  BOOST_TEST(std::signbit(soma::decode<double>(soma::encode(-0.0))));
  for (auto nan : {std::numeric_limits<double>::quiet_NaN(), -std::numeric_limits<double>::quiet_NaN(),
                   std::bit_cast<double>(std::uint64_t{0x7ff8'0000'dead'beefULL})}) {
    auto back = soma::decode<double>(soma::encode(nan));
    BOOST_TEST(std::isnan(back));
    BOOST_TEST(bits(back) == bits(nan));
  }
}

BOOST_AUTO_TEST_CASE(floats_widen_exactly_and_narrow_back) {
  for (float x : {0.0f, -0.0f, 0.1f, std::numeric_limits<float>::max(),
                  std::numeric_limits<float>::lowest(), std::numeric_limits<float>::denorm_min(),
                  std::numeric_limits<float>::infinity()}) {
    auto back = soma::decode<float>(soma::encode(x));
    BOOST_TEST(std::bit_cast<std::uint32_t>(back) == std::bit_cast<std::uint32_t>(x));
  }
  BOOST_TEST(std::isnan(soma::decode<float>(soma::encode(std::numeric_limits<float>::quiet_NaN()))));
  BOOST_TEST(soma::decode<float>(soma::encode(0.1)) == 0.1f);
  BOOST_TEST(soma::decode<double>(soma::encode(0.1f)) == static_cast<double>(0.1f));
  same_after_round_trip(std::vector<float>{1.5f, -0.0f, 3e38f});
}

BOOST_AUTO_TEST_CASE(strings_keep_nul_and_every_byte) {
  same_after_round_trip(std::string{});
  same_after_round_trip(std::string("a\0b\0", 4));
  same_after_round_trip(std::string(1, '\0'));
  std::string all;
  for (int c = 0; c < 256; ++c)
    all += static_cast<char>(c);
  same_after_round_trip(all);
  same_after_round_trip(std::string(1 << 20, 'x'));
  BOOST_TEST(soma::decode<std::string>(soma::encode(std::string("a\0b", 3))).size() == 3u);
}

BOOST_AUTO_TEST_CASE(byte_vectors_are_bytes_and_read_each_other) {
  std::vector<std::byte> b{std::byte{0}, std::byte{255}, std::byte{7}};
  std::vector<std::uint8_t> u{0, 255, 7};
  same_after_round_trip(b);
  same_after_round_trip(u);
  same_after_round_trip(std::vector<std::byte>{});
  BOOST_TEST((soma::decode<std::vector<std::uint8_t>>(soma::encode(b)) == u));
  BOOST_TEST((soma::decode<std::vector<std::byte>>(soma::encode(u)) == b));
  BOOST_TEST(soma::encode(b) == soma::encode(u));
}

BOOST_AUTO_TEST_CASE(vectors_of_anything_empty_or_not) {
  same_after_round_trip(std::vector<int>{});
  same_after_round_trip(std::vector<double>{});
  same_after_round_trip(std::vector<std::string>{});
  same_after_round_trip(std::vector<int>{std::numeric_limits<int>::min(), 0,
                                         std::numeric_limits<int>::max()});
  same_after_round_trip(std::vector<std::int64_t>{std::numeric_limits<std::int64_t>::min(), -1});
  same_after_round_trip(std::vector<std::uint64_t>{std::numeric_limits<std::uint64_t>::max()});
  same_after_round_trip(std::vector<long long>{1, 2, 3});
  same_after_round_trip(std::vector<unsigned short>{1, 65535});
  same_after_round_trip(std::vector<char>{'a', '\0', static_cast<char>(200)});
  same_after_round_trip(std::vector<bool>{true, false, true});
  same_after_round_trip(std::vector<std::string>{"", std::string("\0", 1), "abc"});
  same_after_round_trip(std::vector<std::vector<int>>{{}, {1}, {2, 3}});
  same_after_round_trip(std::vector<std::monostate>(3));
  std::vector<double> big(1 << 17);
  for (std::size_t i = 0; i < big.size(); ++i)
    big[i] = static_cast<double>(i) / 3;
  same_after_round_trip(big);
}

BOOST_AUTO_TEST_CASE(arrays_and_their_size_is_checked) {
  same_after_round_trip(std::array<double, 3>{1, -0.0, 3});
  same_after_round_trip(std::array<std::string, 2>{"a", "b"});
  same_after_round_trip(std::array<int, 0>{});
  same_after_round_trip(std::array<std::int8_t, 2>{-128, 127});
  // Same name, other size: a size check, not undefined behaviour.
  auto two = soma::encode(std::array<int, 2>{1, 2});
  using three = std::array<int, 3>;
  BOOST_CHECK_THROW((void)soma::decode<three>(two), soma::codec_error);
}

BOOST_AUTO_TEST_CASE(maps_ordered_or_not) {
  same_after_round_trip(std::map<std::string, int>{});
  same_after_round_trip(std::map<std::string, int>{{"a", 1}, {"", -1}, {std::string("\0", 1), 2}});
  same_after_round_trip(std::map<int, std::vector<std::string>>{{-1, {}}, {2, {"x", "y"}}});
  same_after_round_trip(std::unordered_map<std::string, double>{{"a", 1.5}, {"b", -0.25}});
  same_after_round_trip(std::unordered_map<int, std::map<int, int>>{{1, {{2, 3}}}, {4, {}}});
  std::map<std::string, int> m{{"x", 1}, {"y", 2}};
  std::unordered_map<std::string, int> u{{"x", 1}, {"y", 2}};
  BOOST_TEST((soma::decode<std::unordered_map<std::string, int>>(soma::encode(m)) == u));
  BOOST_TEST((soma::decode<std::map<std::string, int>>(soma::encode(u)) == m));
}

BOOST_AUTO_TEST_CASE(optionals_keep_which_level_is_empty) {
  same_after_round_trip(std::optional<int>{});
  same_after_round_trip(std::optional<int>{0});
  same_after_round_trip(std::optional<std::string>{""});
  using twice = std::optional<std::optional<int>>;
  auto outer_empty = soma::decode<twice>(soma::encode(twice{}));
  auto inner_empty = soma::decode<twice>(soma::encode(twice{std::optional<int>{}}));
  auto full = soma::decode<twice>(soma::encode(twice{5}));
  BOOST_TEST(!outer_empty.has_value());
  BOOST_TEST((inner_empty.has_value() && !inner_empty->has_value()));
  BOOST_TEST((full.has_value() && full->has_value() && **full == 5));
  BOOST_TEST(soma::encode(twice{}) != soma::encode(twice{std::optional<int>{}}));
}

BOOST_AUTO_TEST_CASE(pairs_tuples_variants_and_none) {
  same_after_round_trip(std::pair<int, std::string>{-3, "p"});
  same_after_round_trip(std::tuple<>{});
  same_after_round_trip(std::tuple<int, std::string, std::vector<double>>{1, "t", {2.5}});
  same_after_round_trip(std::tuple<std::optional<int>, std::pair<bool, bool>>{{}, {true, false}});
  same_after_round_trip(std::monostate{});
  using v = std::variant<std::monostate, int, std::string>;
  same_after_round_trip(v{});
  same_after_round_trip(v{7});
  same_after_round_trip(v{std::string("s")});
  using same_types = std::variant<int, int>;
  auto second = soma::decode<same_types>(soma::encode(same_types{std::in_place_index<1>, 9}));
  BOOST_TEST(second.index() == 1u);
  BOOST_TEST(std::get<1>(second) == 9);
}

BOOST_AUTO_TEST_CASE(everything_nested_in_everything) {
  using deep = std::map<std::string, std::vector<std::optional<std::tuple<int, std::string>>>>;
  deep x{{"a", {std::nullopt, std::tuple<int, std::string>{1, "one"}}}, {"b", {}}};
  same_after_round_trip(x);
}

// A worker's answer read for a forward nobody watches skips its facts, and
// only them.
BOOST_AUTO_TEST_CASE(a_slice_answer_read_without_its_facts) {
  soma::wire::slice_answer a;
  a.facts = {soma::fact{"ran", {{"node", "a"}, {"began_us", std::int64_t{3}}}}};
  a.refused = soma::wire::refusal::node_failed;
  a.node = "a";
  a.error = "it threw";
  a.missing = {"abc"};
  a.taken_us = 17;
  a.held_us = 5;
  auto bytes = soma::wire::encode_slice_answer(a);
  auto read = soma::wire::decode_slice_answer(bytes);
  BOOST_TEST(read.facts == a.facts);
  auto skipped = soma::wire::decode_slice_answer(bytes, soma::wire::answer_facts::skip);
  BOOST_TEST(skipped.facts.empty());
  BOOST_TEST((skipped.refused == a.refused));
  BOOST_TEST(skipped.node == a.node);
  BOOST_TEST(skipped.error == a.error);
  BOOST_TEST(skipped.missing == a.missing);
  BOOST_TEST(skipped.taken_us == a.taken_us);
  BOOST_TEST(skipped.held_us == a.held_us);
  // Facts that do not decode (a name by a run's word number, which an
  // answer never has) are refused when read, and not looked at when skipped.
  capnp::MallocMessageBuilder m;
  auto r = m.initRoot<soma::schema::SliceResult>();
  r.initFacts(1)[0].setNameAt(7);
  r.setNode("a");
  auto flat = capnp::messageToFlatArray(m);
  std::string bad(reinterpret_cast<const char*>(flat.asBytes().begin()), flat.asBytes().size());
  BOOST_CHECK_THROW((void)soma::wire::decode_slice_answer(bad), soma::detail::undecodable);
  BOOST_TEST(soma::wire::decode_slice_answer(bad, soma::wire::answer_facts::skip).node == "a");
}

BOOST_AUTO_TEST_SUITE_END()
