// Machine readings: what a worker writes, what standing() reads, and the
// retention rules that bound them.

#include <boost/test/unit_test.hpp>

#include "scratch.hpp"
#include "soma/store/readings.hpp"
#include "soma/store/standing.hpp"

using namespace soma_test;

namespace {

soma::reading at(const std::string& id, std::int64_t when_us, std::uint64_t served = 0) {
  return {id, 0.25, 0.5, 4, when_us / 2, served, when_us};
}

} // namespace

BOOST_AUTO_TEST_SUITE(readings)

BOOST_AUTO_TEST_CASE(standing_is_each_machines_latest_reading_read_back_whole) {
  scratch dir;
  soma::store s{dir / "s"};
  soma::put_reading(s, at("a-1", 1'000'000, 1));
  soma::put_reading(s, at("b-2", 1'500'000, 7));
  soma::put_reading(s, at("a-1", 2'000'000, 3));
  auto st = soma::standing(s);
  BOOST_TEST(st.size() == 2u);
  BOOST_TEST(st.at("a-1").when_us == 2'000'000);
  BOOST_TEST(st.at("a-1").served == 3u);
  BOOST_TEST(st.at("b-2").served == 7u);
  BOOST_TEST(st.at("b-2").busy == 0.25);
  BOOST_TEST(st.at("b-2").memory == 0.5);
  BOOST_TEST(st.at("b-2").cores == 4u);
  BOOST_TEST(st.at("b-2").up_us == 750'000);
  BOOST_TEST(soma::readings(s, "a-1").size() == 2u);
  BOOST_TEST(soma::readings(s, "a-1").front().when_us == 1'000'000);
}

BOOST_AUTO_TEST_CASE(a_machine_keeps_its_newest_readings_up_to_the_bound) {
  scratch dir;
  soma::store s{dir / "s"};
  auto n = soma::kept_per_machine + 100;
  for (std::size_t i = 0; i < n; ++i)
    soma::put_reading(s, at("a-1", 1'000'000 + static_cast<std::int64_t>(i) * 500'000));
  auto kept = soma::readings(s, "a-1");
  BOOST_TEST(kept.size() == soma::kept_per_machine);
  BOOST_TEST(kept.front().when_us == 1'000'000 + 100 * 500'000);
  BOOST_TEST(kept.back().when_us == 1'000'000 + static_cast<std::int64_t>(n - 1) * 500'000);
}

BOOST_AUTO_TEST_CASE(a_machine_a_day_behind_the_fleet_is_forgotten) {
  scratch dir;
  soma::store s{dir / "s"};
  const std::int64_t t0 = 1'000'000;
  soma::put_reading(s, at("gone-1", t0));
  soma::put_reading(s, at("here-2", t0 + soma::forgotten_after_us - 1));
  soma::put_reading(s, at("here-3", t0 + soma::forgotten_after_us - 1));
  BOOST_TEST(soma::standing(s).size() == 3u); // not quite a day
  soma::put_reading(s, at("here-2", t0 + soma::forgotten_after_us + 1));
  soma::put_reading(s, at("here-3", t0 + soma::forgotten_after_us + 1));
  auto st = soma::standing(s);
  BOOST_TEST(st.size() == 2u);
  BOOST_TEST(st.count("gone-1") == 0u);
  BOOST_TEST(soma::readings(s, "gone-1").empty());
}

BOOST_AUTO_TEST_CASE(one_clock_a_day_fast_forgets_nobody) {
  scratch dir;
  soma::store s{dir / "s"};
  const std::int64_t t0 = 1'000'000;
  soma::put_reading(s, at("a-1", t0));
  soma::put_reading(s, at("b-2", t0));
  soma::put_reading(s, at("fast-3", t0 + 2 * soma::forgotten_after_us));
  BOOST_TEST(soma::standing(s).size() == 3u);
  BOOST_TEST(soma::readings(s, "a-1").size() == 1u);
}

BOOST_AUTO_TEST_CASE(a_machine_id_with_a_slash_or_none_is_refused) {
  scratch dir;
  soma::store s{dir / "s"};
  BOOST_CHECK_THROW(soma::put_reading(s, at("", 1)), soma::store_error);
  BOOST_CHECK_THROW(soma::put_reading(s, at("a/b", 1)), soma::store_error);
  BOOST_TEST(soma::standing(s).empty());
}

BOOST_AUTO_TEST_SUITE_END()
