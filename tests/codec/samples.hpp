#pragma once

// Values encoded both in the test process and in codec_child, to show that
// the same value gives the same bytes in every process; and two user types
// with codecs.

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "soma/codec.hpp"

namespace soma_test {

struct Point {
  double x = 0;
  double y = 0;
  friend bool operator==(const Point&, const Point&) = default;
  friend bool operator<(const Point& a, const Point& b) {
    return std::tie(a.x, a.y) < std::tie(b.x, b.y);
  }
};

struct Shape {
  std::string label;
  std::vector<Point> corners;
  std::optional<std::int32_t> weight;
  friend bool operator==(const Shape&, const Shape&) = default;
};

} // namespace soma_test

template <>
struct soma::codec<soma_test::Point> : soma::fields_codec<soma_test::Point> {
  static std::string name() { return "Point"; }
  static auto fields(soma_test::Point& p) { return std::tie(p.x, p.y); }
};

template <>
struct soma::codec<soma_test::Shape> : soma::fields_codec<soma_test::Shape> {
  static std::string name() { return "Shape"; }
  static auto fields(soma_test::Shape& s) { return std::tie(s.label, s.corners, s.weight); }
};

namespace soma_test {

inline std::string hex(std::string_view bytes) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out += digits[c >> 4];
    out += digits[c & 15];
  }
  return out;
}

/// An unordered map with the same entries filled in one order or another
/// (and with a different bucket count), so that its iteration order differs.
inline std::unordered_map<std::string, std::int64_t> words(bool reversed) {
  std::vector<std::pair<std::string, std::int64_t>> entries;
  for (int i = 0; i < 40; ++i)
    entries.emplace_back("word" + std::to_string(i * 7919 % 1000), i);
  std::unordered_map<std::string, std::int64_t> m;
  if (reversed) {
    m.reserve(500);
    for (auto it = entries.rbegin(); it != entries.rend(); ++it)
      m.insert(*it);
  } else {
    for (auto& e : entries)
      m.insert(e);
  }
  return m;
}

/// "label hex" for a fixed set of values; `reversed` fills unordered maps in
/// another order.
inline std::vector<std::pair<std::string, std::string>> sample_encodings(bool reversed) {
  std::vector<std::pair<std::string, std::string>> out;
  auto add = [&](std::string label, const auto& x) {
    out.emplace_back(std::move(label), hex(soma::encode(x)));
  };
  add("int64_min", std::numeric_limits<std::int64_t>::min());
  add("uint64_max", std::numeric_limits<std::uint64_t>::max());
  add("int", 42);
  add("bool", true);
  add("double", 0.1);
  add("minus_zero", -0.0);
  add("string_with_nul", std::string("a\0b", 3));
  add("vector_double", std::vector<double>{1.5, -2, 1e300});
  add("vector_string", std::vector<std::string>{"x", "", "yz"});
  add("map", std::map<std::string, std::int64_t>{{"a", 1}, {"b", 2}});
  add("unordered_map", words(reversed));
  std::vector<std::pair<std::int64_t, std::vector<std::string>>> lists{
    {1, {"p"}}, {2, {"q", "r"}}, {3, {}}, {-4, {""}}};
  if (reversed)
    std::reverse(lists.begin(), lists.end());
  add("nested_unordered",
      std::unordered_map<std::int64_t, std::vector<std::string>>(lists.begin(), lists.end()));
  add("optional_optional", std::optional<std::optional<int>>{std::optional<int>{}});
  add("tuple", std::tuple<int, std::string, double>{-7, "t", 2.5});
  add("shape", Shape{"tri", {{0, 0}, {1, 0}, {0, 1}}, 3});
  return out;
}

} // namespace soma_test
