#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "soma/draw/rolling.hpp"

BOOST_AUTO_TEST_SUITE(rolling)

BOOST_AUTO_TEST_CASE(window_three_equals_hand_computed_centred_means) {
  std::vector<double> ys{1, 2, 3, 10, 5};
  // Full windows only: (1+2+3)/3 on i1, (2+3+10)/3 on i2, (3+10+5)/3 on i3;
  // none on the ends, where a window of 3 has no room.
  std::vector<double> want{2, 5, 6};
  auto got = soma::draw::rolling_mean(ys, 3);
  BOOST_REQUIRE_EQUAL(got.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i)
    BOOST_TEST(got[i] == want[i], boost::test_tools::tolerance(1e-12));
}

BOOST_AUTO_TEST_CASE(window_five_draws_nothing_where_the_window_is_not_full) {
  std::vector<double> ys{4, 8, 6, 2, 10, 0, 7};
  // i2 -> (4+8+6+2+10)/5 = 6; i3 -> (8+6+2+10+0)/5 = 5.2; i4 -> (6+2+10+0+7)/5.
  std::vector<double> want{6, 5.2, 5};
  auto got = soma::draw::rolling_mean(ys, 5);
  BOOST_REQUIRE_EQUAL(got.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i)
    BOOST_TEST(got[i] == want[i], boost::test_tools::tolerance(1e-12));
}

BOOST_AUTO_TEST_CASE(a_window_wider_than_the_series_has_no_mean_and_fits_when_narrowed) {
  std::vector<double> ys{3, 1, 2};
  BOOST_TEST(soma::draw::rolling_mean(ys, 99).empty());
  BOOST_TEST(soma::draw::fitting_window(99, 3) == 3u);
  BOOST_TEST(soma::draw::fitting_window(99, 4) == 3u);
  BOOST_TEST(soma::draw::fitting_window(5, 40) == 5u);
  BOOST_TEST(soma::draw::fitting_window(5, 0) == 1u);
  BOOST_TEST(soma::draw::rolling_mean(ys, 3) == std::vector<double>{2});
  BOOST_TEST(soma::draw::rolling_mean(std::vector<double>{}, 3).empty());
  BOOST_TEST(soma::draw::rolling_mean(std::vector<double>{7}, 1) == std::vector<double>{7});
}

BOOST_AUTO_TEST_CASE(window_one_is_the_series_itself) {
  std::vector<double> ys{0.1, 0.7, -3, 1e9};
  BOOST_TEST(soma::draw::rolling_mean(ys, 1) == ys);
}

BOOST_AUTO_TEST_CASE(no_mean_lies_outside_the_series_range) {
  std::vector<double> ys;
  for (int i = 0; i < 5000; ++i)
    ys.push_back(((i * 7919) % 1000) * 1e-3 + (i % 3 == 0 ? 1e6 : 0));
  auto [lo, hi] = std::minmax_element(ys.begin(), ys.end());
  for (std::size_t w : {1u, 3u, 51u, 1001u})
    for (double m : soma::draw::rolling_mean(ys, w)) {
      BOOST_TEST(m >= *lo);
      BOOST_TEST(m <= *hi);
    }
}

BOOST_AUTO_TEST_CASE(an_even_or_zero_window_is_refused_with_the_reason) {
  std::vector<double> ys{1, 2, 3};
  for (std::size_t w : {0u, 2u, 10u})
    BOOST_CHECK_EXCEPTION(soma::draw::rolling_mean(ys, w), std::invalid_argument,
                          [](const std::invalid_argument& e) {
                            return std::string{e.what()}.find("must be odd") != std::string::npos;
                          });
}

BOOST_AUTO_TEST_CASE(the_default_window_is_odd_and_about_a_twentieth) {
  BOOST_TEST(soma::draw::default_window(0) == 1u);
  BOOST_TEST(soma::draw::default_window(40) == 3u);
  BOOST_TEST(soma::draw::default_window(100) == 5u);
  BOOST_TEST(soma::draw::default_window(1000) == 51u);
  BOOST_TEST(soma::draw::default_window(100000) == 1001u);
  for (std::size_t n = 0; n < 3000; n += 7)
    BOOST_TEST(soma::draw::default_window(n) % 2 == 1u);
}

BOOST_AUTO_TEST_SUITE_END()
