#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

#include "soma/draw/bars.hpp"
#include "soma/draw/number.hpp"

namespace draw = soma::draw;

BOOST_AUTO_TEST_SUITE(number)

BOOST_AUTO_TEST_CASE(numbers_read_as_a_person_writes_them) {
  BOOST_TEST(draw::short_number(3e12) == "3e12");
  BOOST_TEST(draw::short_number(1.5e12) == "1.5e12");
  BOOST_TEST(draw::short_number(1500) == "1.5k");
  BOOST_TEST(draw::short_number(250000) == "250k");
  BOOST_TEST(draw::short_number(999.96) == "1k"); // rounding carries it into thousands
  BOOST_TEST(draw::short_number(0.001) == "0.001");
  BOOST_TEST(draw::short_number(2.5e-5) == "2.5e-05");
  BOOST_TEST(draw::short_number(1e-6) == "1e-06");
  BOOST_TEST(draw::short_number(-40) == "-40");
  BOOST_TEST(draw::short_number(0.25) == "0.25");
  BOOST_TEST(draw::short_number(0) == "0");
  BOOST_TEST(draw::short_number(480) == "480");
}

BOOST_AUTO_TEST_CASE(tick_labels_share_a_form_and_never_read_the_same) {
  using labels = std::vector<std::string>;
  BOOST_TEST((draw::tick_labels(std::vector<double>{0, 5e11, 1e12, 1.5e12})
              == labels{"0", "5e11", "1e12", "1.5e12"}));
  BOOST_TEST((draw::tick_labels(std::vector<double>{0, 500, 1000, 1500})
              == labels{"0", "0.5k", "1k", "1.5k"}));
  BOOST_TEST((draw::tick_labels(std::vector<double>{0, 0.25, 0.5}) == labels{"0", "0.25", "0.5"}));
  BOOST_TEST((draw::tick_labels(std::vector<double>{-50, -40, -30}) == labels{"-50", "-40", "-30"}));
  BOOST_TEST((draw::tick_labels(std::vector<double>{1e-6, 1.5e-6, 2e-6})
              == labels{"1e-06", "1.5e-06", "2e-06"}));
  // A narrow range far from zero keeps the digits that tell ticks apart.
  auto close = draw::tick_labels(std::vector<double>{1e12, 1e12 + 2e6, 1e12 + 4e6});
  BOOST_TEST(close[0] != close[1]);
  BOOST_TEST(close[1] != close[2]);
  BOOST_TEST(close[1] == "1.000002e12");
}

BOOST_AUTO_TEST_CASE(durations_of_one_label_share_one_unit) {
  auto ms = draw::unit_for(800'000);
  BOOST_TEST(ms.name == "ms");
  BOOST_TEST(draw::duration(800'000, ms) == "800 ms");
  BOOST_TEST(draw::duration(2289, ms) == "2.3 ms");
  BOOST_TEST(draw::duration(2, ms) == "0.002 ms");
  BOOST_TEST(draw::duration(480) == "480 µs");
  BOOST_TEST(draw::duration(2289) == "2.3 ms"); // never "2289 µs"
  BOOST_TEST(draw::duration(1'270'000) == "1.3 s");
}

BOOST_AUTO_TEST_SUITE_END()
