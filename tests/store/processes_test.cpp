#include <boost/test/unit_test.hpp>

#include <chrono>

#include "child.hpp"
#include "scratch.hpp"
#include "soma/store/readers.hpp"
#include "soma/store/store.hpp"

using namespace soma_test;
using namespace std::chrono_literals;

BOOST_AUTO_TEST_SUITE(processes)

BOOST_AUTO_TEST_CASE(two_processes_record_two_runs_into_one_store_at_once) {
  scratch tmp;
  auto dir = tmp / "s";
  {
    child a{{SOMA_RECORD_CHILD, dir, "left", "600", "50"}};
    child b{{SOMA_RECORD_CHILD, dir, "right", "600", "50"}};
    for (auto* c : {&a, &b}) {
      std::optional<std::string> last;
      while (auto l = c->line(60s))
        last = l;
      BOOST_TEST((last && *last == "durable 600"));
      BOOST_TEST(c->wait() == 0);
    }
  }
  soma::store s{dir, {.read_only = true}};
  auto rs = soma::runs(s);
  BOOST_REQUIRE_EQUAL(rs.size(), 2u);
  for (auto& r : rs) {
    BOOST_TEST(r.forwards == 600u);
    BOOST_TEST(r.broke == 0u);
    // Each recorder closed its run when its process ended.
    BOOST_TEST(r.status == soma::run_status::finished);
    BOOST_TEST(r.how.starts_with("its recorder closed it at "), r.how);
    BOOST_TEST(r.ended_us.has_value());
    auto c = soma::curve(s, r.run);
    BOOST_REQUIRE_EQUAL(c.size(), 600u);
    for (std::uint64_t i = 0; i < 600; ++i) {
      BOOST_TEST(c[i].first == i);
      BOOST_TEST(c[i].second == static_cast<double>(i));
    }
  }
}

BOOST_AUTO_TEST_CASE(a_killed_recorder_leaves_every_flushed_forward_intact) {
  scratch tmp;
  auto dir = tmp / "s";
  std::uint64_t before = 0; // forwards in the store before this round
  for (int round = 0; round < 3; ++round) {
    std::uint64_t durable = 0;
    {
      child c{{SOMA_RECORD_CHILD, dir, "killed", "0", "25"}};
      // Kill it mid-run, at a different point each round.
      while (durable < 100u * static_cast<unsigned>(round + 1)) {
        auto l = c.line(30s);
        BOOST_REQUIRE(l);
        durable = std::stoull(l->substr(8));
        // Reading while another process writes: each read is one moment.
        soma::store reading{dir, {.read_only = true}};
        auto rs = soma::runs(reading);
        BOOST_REQUIRE_EQUAL(rs.size(), 1u);
        BOOST_TEST(rs[0].forwards >= before + durable);
        // Its writer lives: the run is running, and says how that is known.
        BOOST_TEST(rs[0].status == soma::run_status::running, rs[0].how);
        BOOST_TEST(rs[0].how == "its writer, pid " + std::to_string(c.pid()) + " on this machine, lives");
      }
      auto pid = c.pid();
      c.kill(SIGKILL);
      int status = c.wait();
      BOOST_TEST(WIFSIGNALED(status));
      // Killed, it never closed the run: the run ended without closing.
      soma::store reading{dir, {.read_only = true}};
      auto row = soma::run_summary(reading, "killed");
      BOOST_TEST(row.status == soma::run_status::died);
      BOOST_TEST(row.how == "its writer, pid " + std::to_string(pid) + " on this machine, is gone");
      BOOST_TEST(!row.ended_us.has_value());
    }
    soma::store s{dir, {.read_only = true}};
    auto fw = soma::forwards(s, "killed");
    // Every forward flushed before the kill is there, and each reads whole;
    // the numbering runs on across the killed runs without a gap or a repeat.
    BOOST_TEST(fw.size() >= before + durable);
    for (std::uint64_t i = 0; i < fw.size(); ++i) {
      BOOST_TEST(fw[i].forward == i);
      auto told = soma::facts(s, "killed", i);
      // A tick may have written the forward running at a kill, still open:
      // the last of some round. It must still read.
      if (fw[i].state == soma::outcome::open)
        continue;
      BOOST_TEST(fw[i].state == soma::outcome::ok);
      BOOST_TEST(fw[i].nodes == 3u);
      BOOST_TEST(told.size() >= 4u);
    }
    before = fw.size();
  }
}

BOOST_AUTO_TEST_SUITE_END()
