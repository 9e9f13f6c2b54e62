#include <boost/test/unit_test.hpp>

#include "scratch.hpp"
#include "soma/store/hosts.hpp"
#include "writing.hpp"

using namespace soma_test;

BOOST_AUTO_TEST_SUITE(hosts)

BOOST_AUTO_TEST_CASE(work_and_waiting_are_added_per_host) {
  scratch tmp;
  soma::store s{tmp / "s"};
  std::vector<std::vector<soma::fact>> told;
  for (int i = 0; i < 2; ++i)
    told.push_back({
      {"ran", {{"node", "tokenize"}, {"began_us", 1}, {"took_us", 10}}},
      {"ran", {{"node", "embed"}, {"began_us", 20}, {"took_us", 100}, {"host", "w1"}}},
      {"left", {{"host", "w1"}, {"began_us", 12}, {"took_us", 1000}}},
      {"failed", {{"node", "rank"}, {"error", "no"}, {"began_us", 30}, {"took_us", 7}, {"host", "w2"}}},
      {"left", {{"host", "w2"}, {"began_us", 28}, {"took_us", 50}}},
      {"ran", {{"node", "score"}, {"began_us", 1100}, {"took_us", 5}}},
      {"finished", {{"took_us", 1200}}},
    });
  write_run(s, "remote", told);
  auto rows = soma::hosts(s, "remote");
  BOOST_REQUIRE_EQUAL(rows.size(), 3u);
  BOOST_TEST(rows[0].host == "here");
  BOOST_TEST(rows[0].slices == 0u);
  BOOST_TEST(rows[0].took_us == 30);
  BOOST_TEST(rows[0].waiting_us == 0);
  BOOST_TEST(rows[1].host == "w1");
  BOOST_TEST(rows[1].slices == 2u);
  BOOST_TEST(rows[1].took_us == 200);
  BOOST_TEST(rows[1].waiting_us == 1800);
  BOOST_TEST(rows[2].host == "w2");
  BOOST_TEST(rows[2].slices == 2u);
  BOOST_TEST(rows[2].took_us == 14);
  BOOST_TEST(rows[2].waiting_us == 86);
}

BOOST_AUTO_TEST_CASE(a_run_that_never_left_is_all_here) {
  scratch tmp;
  soma::store s{tmp / "s"};
  write_run(s, "local", {{{"ran", {{"node", "a"}, {"took_us", 4}}}}});
  auto rows = soma::hosts(s, "local");
  BOOST_REQUIRE_EQUAL(rows.size(), 1u);
  BOOST_TEST(rows[0].host == "here");
  BOOST_TEST(rows[0].took_us == 4);
}

BOOST_AUTO_TEST_CASE(an_unknown_run_is_named) {
  scratch tmp;
  soma::store s{tmp / "s"};
  write_run(s, "local", {{{"ran", {{"node", "a"}, {"took_us", 4}}}}});
  BOOST_CHECK_EXCEPTION(soma::hosts(s, "nope"), soma::store_error, [](const soma::store_error& e) {
    return std::string{e.what()}.starts_with("no run 'nope' in the store");
  });
}

BOOST_AUTO_TEST_SUITE_END()
