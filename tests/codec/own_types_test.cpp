#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "samples.hpp"

using soma_test::Point;
using soma_test::Shape;

namespace {

// An older Shape: the same name, one field fewer.
struct OldShape {
  std::string label;
  std::vector<Point> corners;
};

// Bytes that claim to be a Colour but hold 7.
struct NotAColour {};

} // namespace

// Outside the anonymous namespace only so that docs/codec.md can show the
// enum and its codec as one piece; nothing else in this binary is a Colour.
//! [colour]
// A type that is not just its fields: an enum, written by hand.
enum class Colour : std::uint8_t { red, green, blue };

template <>
struct soma::codec<Colour> {
  static std::string name() { return "Colour"; }
  static void write(soma::value_writer out, Colour c) {
    out.write_uint64(static_cast<std::uint64_t>(c));
  }
  static Colour read(soma::value_reader in) {
    auto x = in.read_uint64();
    if (x > 2)
      throw soma::codec_error("a Colour is 0, 1 or 2, these bytes hold " + std::to_string(x));
    return static_cast<Colour>(x);
  }
};
//! [colour]

template <>
struct soma::codec<NotAColour> {
  static std::string name() { return "Colour"; }
  static void write(soma::value_writer out, NotAColour) { out.write_uint64(7); }
  static NotAColour read(soma::value_reader) { return {}; }
};

template <>
struct soma::codec<OldShape> : soma::fields_codec<OldShape> {
  static std::string name() { return "Shape"; }
  static auto fields(OldShape& s) { return std::tie(s.label, s.corners); }
};

static_assert(soma::encodable<Point>);
static_assert(soma::encodable<std::map<Point, std::vector<Shape>>>);

BOOST_AUTO_TEST_SUITE(own_types)

BOOST_AUTO_TEST_CASE(a_struct_round_trips_through_its_fields) {
  Point p{1.5, -2};
  BOOST_TEST((soma::decode<Point>(soma::encode(p)) == p));
  Shape s{"tri", {{0, 0}, {1, 0}, {0, 1}}, 3};
  BOOST_TEST((soma::decode<Shape>(soma::encode(s)) == s));
  Shape empty;
  BOOST_TEST((soma::decode<Shape>(soma::encode(empty)) == empty));
}

BOOST_AUTO_TEST_CASE(a_user_type_nests_in_vectors_maps_and_optionals) {
  BOOST_TEST(soma::codec<std::vector<Point>>::name() == "vector<Point>");
  BOOST_TEST((soma::codec<std::map<std::string, Shape>>::name() == "map<string,Shape>"));
  std::vector<Point> ps{{1, 2}, {3, 4}};
  BOOST_TEST((soma::decode<std::vector<Point>>(soma::encode(ps)) == ps));
  std::map<std::string, Shape> shapes{{"a", Shape{"a", {{1, 1}}, {}}}, {"b", Shape{}}};
  BOOST_TEST((soma::decode<std::map<std::string, Shape>>(soma::encode(shapes)) == shapes));
  std::map<Point, int> by_point{{{0, 1}, 1}, {{2, 3}, 2}};
  BOOST_TEST((soma::decode<std::map<Point, int>>(soma::encode(by_point)) == by_point));
  std::unordered_map<std::string, std::vector<Shape>> u{{"x", {Shape{"x", {}, 1}}}};
  BOOST_TEST((soma::decode<std::unordered_map<std::string, std::vector<Shape>>>(soma::encode(u))
              == u));
  std::optional<Point> op{Point{5, 6}};
  BOOST_TEST((soma::decode<std::optional<Point>>(soma::encode(op)) == op));
}

BOOST_AUTO_TEST_CASE(another_type_is_refused_by_name) {
  try {
    (void)soma::decode<Point>(soma::encode(Shape{}));
    BOOST_FAIL("decoded a Shape as a Point");
  } catch (const soma::codec_error& e) {
    BOOST_TEST(std::string{e.what()} == "these bytes hold a Shape, not a Point");
  }
}

BOOST_AUTO_TEST_CASE(a_changed_struct_under_the_same_name_is_a_clear_error) {
  auto old = soma::encode(OldShape{"sq", {{0, 0}}});
  try {
    (void)soma::decode<Shape>(old);
    BOOST_FAIL("decoded two fields as three");
  } catch (const soma::codec_error& e) {
    BOOST_TEST(std::string{e.what()}.find("a Shape has 3 fields, these bytes hold 2")
               != std::string::npos, e.what());
  }
}

BOOST_AUTO_TEST_CASE(a_codec_written_by_hand) {
  static_assert(soma::encodable<Colour>);
  BOOST_TEST((soma::decode<Colour>(soma::encode(Colour::blue)) == Colour::blue));
  std::vector<Colour> cs{Colour::green, Colour::red};
  BOOST_TEST((soma::decode<std::vector<Colour>>(soma::encode(cs)) == cs));
  try {
    (void)soma::decode<Colour>(soma::encode(NotAColour{}));
    BOOST_FAIL("decoded 7 as a Colour");
  } catch (const soma::codec_error& e) {
    BOOST_TEST(std::string{e.what()}
               == "cannot decode a Colour: a Colour is 0, 1 or 2, these bytes hold 7");
  }
}

BOOST_AUTO_TEST_SUITE_END()
