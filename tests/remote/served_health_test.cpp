// The served store's cases that fill a store through its internals
// (soma::detail), which libsoma does not export: they link soma::testing, and
// load no node library in this process (docs/building.md, "Tests link soma
// statically").
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "../store/scratch.hpp"
#include "remote_fixture.hpp"
#include "served.hpp"
#include "soma/health/judge.hpp"
#include "soma/health/rulebook.hpp"
#include "soma/store/detail/readings_at.hpp"
#include "soma/store/readings.hpp"

using namespace soma_test;

BOOST_FIXTURE_TEST_SUITE(served_health, system_fixture)

// soma health reads every machine's last readings: through soma:// in parts
// by their bytes, so 6,000 machines cost at most one round trip more than
// 30 (one part holds 16,384 readings), where they cost one per machine.
BOOST_AUTO_TEST_CASE(health_through_soma_takes_round_trips_by_bytes_not_by_machines) {
  scratch dir;
  std::string served_dir = dir / "served";
  constexpr std::int64_t t0 = 1'700'000'000'000'000;
  auto add_machines = [&](int from, int to) {
    soma::store local{served_dir};
    std::vector<soma::reading> rs;
    for (int i = from; i < to; ++i)
      for (int k = 0; k < 3; ++k) {
        soma::reading r;
        r.id = "m" + std::to_string(100000 + i);
        r.every_us = 1'000'000;
        r.when_us = t0 + k * 1'000'000 + (i == 7 ? 0 : 60'000'000); // m100007 went quiet
        rs.push_back(r);
      }
    soma::detail::put_readings_at(local.env(), rs);
  };
  add_machines(0, 30);
  node_process server{{node_program, "--serve-store", served_dir}};
  auto address = "soma://127.0.0.1:" + std::to_string(server.port);
  auto book = soma::health::rulebook::shipped();
  // The round trips of one judgement through soma://, which must find what
  // the store itself finds.
  auto judged = [&](std::size_t machines) {
    auto there = served(sys, address, {.read_only = true});
    auto before = asked(there);
    auto far = soma::health::judge(there, book);
    auto trips = asked(there) - before;
    auto near = soma::health::judge(soma::store{served_dir, {.read_only = true}}, book);
    BOOST_TEST(far.machines == machines);
    BOOST_TEST(near.machines == machines);
    BOOST_REQUIRE(far.opinions.size() == near.opinions.size());
    BOOST_TEST(std::any_of(far.opinions.begin(), far.opinions.end(), [](auto& o) {
      return o.subject.find("m100007") != std::string::npos; // the machine that went quiet
    }));
    for (std::size_t i = 0; i < far.opinions.size(); ++i) {
      BOOST_TEST(far.opinions[i].rule == near.opinions[i].rule);
      BOOST_TEST(far.opinions[i].subject == near.opinions[i].subject);
    }
    return trips;
  };
  auto few = judged(30);
  add_machines(30, 6000);
  auto many = judged(6000);
  BOOST_TEST_MESSAGE("soma health through soma://: " << few << " round trips for 30 machines, "
                                                    << many << " for 6,000");
  BOOST_TEST(many <= few + 1, many << " round trips for 6,000 machines, " << few << " for 30");
}

BOOST_AUTO_TEST_SUITE_END()
