// soma live's sparkline (apps/soma/value_columns.hpp): a long or noisy
// series reads as a curve, one dot a column, not as a block of every dot.

#include <boost/test/unit_test.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "value_columns.hpp"

using soma::cli::braille;
using soma::cli::value_columns;

namespace {

// The dots lit in a line of braille, counted.
std::size_t dots(const std::string& line) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < line.size();) {
    if (line[i] == ' ') { // an empty cell
      ++i;
      continue;
    }
    auto code = ((line[i] & 0x0F) << 12) | ((line[i + 1] & 0x3F) << 6) | (line[i + 2] & 0x3F);
    n += static_cast<std::size_t>(__builtin_popcount(static_cast<unsigned>(code - 0x2800)));
    i += 3;
  }
  return n;
}

} // namespace

BOOST_AUTO_TEST_SUITE(sparkline)

BOOST_AUTO_TEST_CASE(a_noisy_series_is_a_curve_of_means_not_a_block) {
  // 100,000 forwards of a falling loss with noise as wide as its range.
  value_columns v;
  for (std::uint64_t n = 0; n < 100'000; ++n) {
    double trend = 2.0 - 1.5 * static_cast<double>(n) / 100'000.0;
    v.add(n, trend + ((n % 2) ? 0.8 : -0.8));
  }
  auto [lo, hi] = *v.range();
  auto cols = v.fitted(60, 100'000);
  BOOST_REQUIRE((cols.size() > 50u && cols.size() <= 60u)); // equal spans, at most 60
  auto lines = braille(cols, lo, hi, 2);
  BOOST_REQUIRE_EQUAL(lines.size(), 2u);
  // One dot a column over the two rows, where a range would light all 8
  // dots of every column (a block of ⣿).
  BOOST_TEST(dots(lines[0]) + dots(lines[1]) == cols.size());
  BOOST_TEST(lines[0].find("\u28ff") == std::string::npos);
  // The trend falls: the first column's dot is above the last's.
  BOOST_TEST(cols.front().mean() > cols.back().mean());
  BOOST_TEST(std::abs(cols.front().mean() - 2.0) < 0.05);
  // The range each column held is kept beside its mean.
  BOOST_TEST(cols.front().hi - cols.front().lo > 1.5);
}

BOOST_AUTO_TEST_CASE(columns_merge_their_means_as_the_run_grows) {
  value_columns v(4);
  for (std::uint64_t n = 0; n < 8; ++n)
    v.add(n, static_cast<double>(n));
  BOOST_TEST(v.span() == 2u);
  auto cols = v.fitted(4, 8);
  BOOST_REQUIRE_EQUAL(cols.size(), 4u);
  BOOST_TEST(cols[0].mean() == 0.5);
  BOOST_TEST(cols[3].mean() == 6.5);
  BOOST_TEST(cols[3].count == 2u);
}

BOOST_AUTO_TEST_SUITE_END()
