// Each shipped rule against a record built to trip it, one that stays just
// under its threshold, and its `for` holding the condition pending; judging
// as of a past moment; a rulebook's settings from a file and the API, and a
// rule of one's own.

#include <boost/test/unit_test.hpp>

#include <cmath>
#include <fstream>
#include <set>
#include <string>

#include "making.hpp"
#include "scratch.hpp"
#include "seed_nodes.hpp"
#include "soma/soma.hpp"
#include "soma/health/rules.hpp"
#include "soma/store/trials.hpp"

using namespace soma_test;
using soma::health::status;
namespace health = soma::health;

namespace {

std::int64_t wall_us() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
           std::chrono::system_clock::now().time_since_epoch())
    .count();
}

} // namespace

BOOST_AUTO_TEST_SUITE(rules)

BOOST_AUTO_TEST_CASE(silent_store_holds_the_newest_write_against_the_readers_clock_and_says_so) {
  scratch tmp;
  soma::store s{tmp / "s"};
  BOOST_TEST(opinions_of(s, "silent_store", {.at_us = t0_us}).empty()); // nothing written: not silent
  reading_at(s, "a-1", t0_us);
  auto r = record_at(t0_s + 10);
  r.when_us += 500'000; // the newest write, to the microsecond: t0 + 10.5 s
  std::vector<written> fs{{r, {}}};
  write_forwards(s, "r", fs);
  auto newest = t0_us + 10'500'000;
  BOOST_TEST(opinions_of(s, "silent_store", {.at_us = newest + 300 * s_us}).empty());
  auto ops = opinions_of(s, "silent_store", {.at_us = newest + 301 * s_us});
  BOOST_REQUIRE_EQUAL(ops.size(), 1u);
  auto& o = ops[0];
  BOOST_TEST(o.state == status::firing); // `for` 0: firing as soon as it holds
  BOOST_TEST(o.kind == "store");
  BOOST_TEST(o.subject == "the store");
  BOOST_TEST(o.measure == "silent_s");
  BOOST_TEST(o.value == 301.0);
  BOOST_TEST(o.threshold == 300.0);
  BOOST_TEST(o.since_us == newest + 300 * s_us);
  BOOST_TEST(o.threshold_is.find("this reader's clock") != std::string::npos, o.threshold_is);
  BOOST_TEST(o.threshold_is.find("skewed") != std::string::npos, o.threshold_is);
  // A reading newer than the forward is the newest write.
  reading_at(s, "a-1", newest + 100 * s_us);
  BOOST_TEST(opinions_of(s, "silent_store", {.at_us = newest + 301 * s_us}).empty());
  // Its threshold is a setting, and `for` holds it pending.
  auto book = health::rulebook::shipped();
  book.set("silent_store", "over", 10);
  book.set("silent_store", "for", 5);
  auto pending = opinions_of(s, "silent_store", {.at_us = newest + 112 * s_us}, book);
  BOOST_REQUIRE_EQUAL(pending.size(), 1u);
  BOOST_TEST(pending[0].state == status::pending);
  BOOST_TEST(opinions_of(s, "silent_store", {.at_us = newest + 116 * s_us}, book).at(0).state
             == status::firing);
  // Without --at, the reader's clock is now: this store, written in 2030,
  // is ahead of it, so not silent.
  BOOST_TEST(opinions_of(s, "silent_store").empty());
}

BOOST_AUTO_TEST_CASE(quiet_machine_is_pending_past_its_threshold_and_fires_after_its_for) {
  scratch tmp;
  soma::store s{tmp / "s"};
  reading_at(s, "a-1", t0_us);                    // reports every 0.5 s, then nothing
  reading_at(s, "b-2", t0_us + 2'400'000);        // 2.4 s later: under 5 x 0.5 s
  BOOST_TEST(opinions_of(s, "quiet_machine").empty());
  reading_at(s, "b-2", t0_us + 2'600'000);
  auto ops = opinions_of(s, "quiet_machine");
  BOOST_REQUIRE_EQUAL(ops.size(), 1u);
  auto& o = ops[0];
  BOOST_TEST(o.subject == "machine a-1");
  BOOST_TEST(o.kind == "machine");
  BOOST_TEST(o.run.empty());
  BOOST_TEST(o.measure == "quiet_s");
  BOOST_TEST(o.value == 2.6, boost::test_tools::tolerance(1e-9));
  BOOST_TEST(o.threshold == 2.5, boost::test_tools::tolerance(1e-9));
  BOOST_TEST(o.threshold_is == "5 x its reporting interval 0.5 s");
  BOOST_TEST(o.since_us == t0_us + 2'500'000);
  BOOST_TEST(o.for_us == 5 * s_us);
  BOOST_TEST(o.state == status::pending);
  BOOST_TEST(o.says().starts_with("opinion (quiet_machine, pending): machine a-1: quiet_s 2.6 is over 2.5"),
             o.says());
  reading_at(s, "b-2", t0_us + 7'499'000); // 1 ms short of its for
  BOOST_TEST(opinions_of(s, "quiet_machine").at(0).state == status::pending);
  reading_at(s, "b-2", t0_us + 7'500'000);
  ops = opinions_of(s, "quiet_machine");
  BOOST_REQUIRE_EQUAL(ops.size(), 1u);
  BOOST_TEST(ops[0].state == status::firing);
  BOOST_TEST(ops[0].says().find("has been for at least 5 s") != std::string::npos, ops[0].says());
  // Its next reading clears it.
  reading_at(s, "a-1", t0_us + 7'600'000);
  BOOST_TEST(opinions_of(s, "quiet_machine").empty());
}

BOOST_AUTO_TEST_CASE(quiet_machine_of_a_writer_that_did_not_say_its_interval_uses_its_last_gap) {
  scratch tmp;
  soma::store s{tmp / "s"};
  reading_at(s, "old-1", t0_us - s_us, 0);
  reading_at(s, "old-1", t0_us, 0); // every 1 s, by its gap
  reading_at(s, "b-2", t0_us + 5 * s_us);
  BOOST_TEST(opinions_of(s, "quiet_machine").empty()); // 5 s is not over 5 x 1 s
  reading_at(s, "b-2", t0_us + 5'100'000);
  auto ops = opinions_of(s, "quiet_machine");
  BOOST_REQUIRE_EQUAL(ops.size(), 1u);
  BOOST_TEST(ops[0].threshold == 5.0, boost::test_tools::tolerance(1e-9));
  BOOST_TEST(ops[0].threshold_is == "5 x its reporting interval 1 s (the gap between its last two readings)");
}

BOOST_AUTO_TEST_CASE(busy_machine_holds_over_its_threshold_in_every_reading_for_30_s) {
  scratch tmp;
  soma::store s{tmp / "s"};
  reading_at(s, "a-1", t0_us - s_us, s_us, 0.5);
  for (int i = 0; i < 30; ++i) // t0 .. t0 + 29 s, busy 0.95
    reading_at(s, "a-1", t0_us + i * s_us, s_us, 0.95);
  for (int i = 0; i <= 60; ++i) // at the threshold, not over it
    reading_at(s, "c-3", t0_us + i * s_us - 30 * s_us, s_us, 0.9);
  for (int i = 0; i <= 40; ++i) // one dip in the middle starts it again
    reading_at(s, "d-4", t0_us + i * s_us - 11 * s_us, s_us, i == 20 ? 0.3 : 0.95);
  auto ops = opinions_of(s, "busy_machine");
  BOOST_REQUIRE_EQUAL(ops.size(), 2u);
  BOOST_TEST(ops[0].subject == "machine a-1");
  BOOST_TEST(ops[0].state == status::pending); // 29 s by its own clock
  BOOST_TEST(ops[0].since_us == t0_us);
  BOOST_TEST(ops[0].value == 0.95);
  BOOST_TEST(ops[0].threshold == 0.9);
  BOOST_TEST(ops[1].subject == "machine d-4");
  BOOST_TEST(ops[1].since_us == t0_us + 10 * s_us); // the reading after the dip
  BOOST_TEST(ops[1].state == status::pending);
  reading_at(s, "a-1", t0_us + 30 * s_us, s_us, 0.97);
  ops = opinions_of(s, "busy_machine");
  BOOST_REQUIRE_EQUAL(ops.size(), 2u);
  BOOST_TEST(ops[0].subject == "machine a-1"); // firing first
  BOOST_TEST(ops[0].state == status::firing);
  BOOST_TEST(ops[0].value == 0.97);
}

BOOST_AUTO_TEST_CASE(memory_machine_fires_over_0_9_and_not_at_it) {
  scratch tmp;
  soma::store s{tmp / "s"};
  for (int i = 0; i <= 30; ++i) {
    reading_at(s, "a-1", t0_us + i * s_us, s_us, 0.1, 0.95);
    reading_at(s, "b-2", t0_us + i * s_us, s_us, 0.1, 0.9);
  }
  auto ops = opinions_of(s, "memory_machine");
  BOOST_REQUIRE_EQUAL(ops.size(), 1u);
  BOOST_TEST(ops[0].subject == "machine a-1");
  BOOST_TEST(ops[0].measure == "memory");
  BOOST_TEST(ops[0].state == status::firing);
  BOOST_TEST(ops[0].since_us == t0_us);
}

BOOST_AUTO_TEST_CASE(not_worth_sending_fires_over_10_times_the_work_after_10_trips) {
  scratch tmp;
  soma::store s{tmp / "s"};
  auto run = [&](const std::string& name, int forwards, std::int64_t trip_us) {
    std::vector<written> fs;
    for (int i = 0; i < forwards; ++i)
      fs.push_back({record_at(t0_s + i), {ran("embed", 100, "w1"), left("w1", trip_us), ran("score", 7)}});
    write_forwards(s, name, fs);
  };
  run("over", 10, 1200);  // waiting 1100 against work 100: 11 x
  run("at", 10, 1100);    // 10 x: not over
  run("few", 9, 5000);    // 9 trips: not judged
  auto ops = opinions_of(s, "not_worth_sending");
  BOOST_REQUIRE_EQUAL(ops.size(), 1u);
  BOOST_TEST(ops[0].subject == "host w1 of run over");
  BOOST_TEST(ops[0].kind == "host");
  BOOST_TEST(ops[0].run == "over");
  BOOST_TEST(ops[0].value == 11.0, boost::test_tools::tolerance(1e-9));
  BOOST_TEST(ops[0].threshold == 10.0);
  BOOST_TEST(ops[0].threshold_is == "waiting 11 ms against work 1 ms over 10 trips");
  BOOST_TEST(ops[0].since_us == (t0_s + 9) * s_us); // its tenth trip
  BOOST_TEST(ops[0].state == status::firing);
}

BOOST_AUTO_TEST_CASE(slow_node_fires_over_3_times_its_median_in_earlier_runs_of_the_same_graph) {
  scratch tmp;
  soma::store s{tmp / "s"};
  auto run = [&](const std::string& name, std::int64_t first_s, std::int64_t embed_us,
                 const std::string& other = "score") {
    std::vector<written> fs;
    for (int i = 0; i < 5; ++i)
      fs.push_back({record_at(first_s + i), {ran("embed", embed_us), ran(other, 50)}});
    write_forwards(s, name, fs);
  };
  run("e1", t0_s, 9'000);
  run("e2", t0_s + 100, 10'000);
  run("e3", t0_s + 200, 11'000);
  run("slow", t0_s + 300, 30'100);      // over 3 x 10 ms
  run("near", t0_s + 400, 29'900);      // median of 9, 10, 11, 30.1 ms is 10.5: 31.5
  run("other", t0_s + 500, 100'000, "rank"); // another graph: no earlier runs of it
  auto ops = opinions_of(s, "slow_node");
  BOOST_REQUIRE_EQUAL(ops.size(), 1u);
  BOOST_TEST(ops[0].subject == "node embed of run slow");
  BOOST_TEST(ops[0].kind == "node");
  BOOST_TEST(ops[0].value == 30'100.0);
  BOOST_TEST(ops[0].threshold == 30'000.0);
  BOOST_TEST(ops[0].threshold_is == "3 x its median 10000 us over 3 earlier runs");
  BOOST_TEST(ops[0].since_us == (t0_s + 300) * s_us);
  // With fewer earlier runs than it asks for, it has no opinion.
  auto book = health::rulebook::shipped();
  book.set("slow_node", "runs", 5);
  BOOST_TEST(opinions_of(s, "slow_node", {}, book).empty());
}

BOOST_AUTO_TEST_CASE(slow_node_never_fires_under_its_floor_of_1_ms) {
  // Sub-millisecond timings of a healthy sweep wander by far more than 3 x
  // (a_sweep's nodes took 0.017 to 0.133 us): a ratio of them is noise.
  scratch tmp;
  soma::store s{tmp / "s"};
  auto run = [&](const std::string& name, std::int64_t first_s, std::int64_t embed_us) {
    std::vector<written> fs;
    for (int i = 0; i < 5; ++i)
      fs.push_back({record_at(first_s + i), {ran("embed", embed_us), ran("score", 50)}});
    write_forwards(s, name, fs);
  };
  run("e1", t0_s, 90);
  run("e2", t0_s + 100, 100);
  run("e3", t0_s + 200, 110);
  run("tiny", t0_s + 300, 999);    // 10 x its median, and under 1 ms
  BOOST_TEST(opinions_of(s, "slow_node").empty());
  run("ms", t0_s + 400, 1'000);    // at the floor: judged, and over 3 x
  auto ops = opinions_of(s, "slow_node");
  BOOST_REQUIRE_EQUAL(ops.size(), 1u);
  BOOST_TEST(ops[0].subject == "node embed of run ms");
  BOOST_TEST(ops[0].threshold_is == "3 x its median 105 us over 4 earlier runs, and at least 1000 us");
  // A rulebook lowers the floor: then the ratio alone decides.
  auto book = health::rulebook::shipped();
  book.set("slow_node", "at_least_us", 0);
  ops = opinions_of(s, "slow_node", {}, book);
  std::set<std::string> subjects;
  for (auto& op : ops)
    subjects.insert(op.subject);
  BOOST_TEST((subjects == std::set<std::string>{"node embed of run ms", "node embed of run tiny"}));
}

BOOST_AUTO_TEST_CASE(broke_forwards_fires_on_one_broke_among_the_last_100_and_for_holds_it) {
  scratch tmp;
  soma::store s{tmp / "s"};
  std::vector<written> broke, fine;
  for (int i = 0; i < 100; ++i) {
    broke.push_back({record_at(t0_s + i, i == 50 ? soma::outcome::broke : soma::outcome::ok), {}});
    fine.push_back({record_at(t0_s + i), {}});
  }
  write_forwards(s, "b", broke);
  write_forwards(s, "ok", fine);
  auto ops = opinions_of(s, "broke_forwards");
  BOOST_REQUIRE_EQUAL(ops.size(), 1u);
  BOOST_TEST(ops[0].subject == "run b");
  BOOST_TEST(ops[0].measure == "broke of its last 100 forwards");
  BOOST_TEST(ops[0].value == 1.0);
  BOOST_TEST(ops[0].threshold == 0.0);
  BOOST_TEST(ops[0].since_us == (t0_s + 50) * s_us);
  BOOST_TEST(ops[0].state == status::firing);
  auto book = health::rulebook::shipped();
  book.set("broke_forwards", "for", 50); // 49 s have passed by the newest write
  BOOST_TEST(opinions_of(s, "broke_forwards", {}, book).at(0).state == status::pending);
  book.set("broke_forwards", "for", 49);
  BOOST_TEST(opinions_of(s, "broke_forwards", {}, book).at(0).state == status::firing);
  book.set("broke_forwards", "over", 1);
  BOOST_TEST(opinions_of(s, "broke_forwards", {}, book).empty());
  // A condition that broke off inside the window began again after it.
  {
    scratch again;
    soma::store t{again / "s"};
    std::vector<written> two;
    for (int i = 0; i < 200; ++i)
      two.push_back({record_at(t0_s + i, i == 50 || i == 160 ? soma::outcome::broke : soma::outcome::ok), {}});
    write_forwards(t, "twice", two);
    auto again_ops = opinions_of(t, "broke_forwards");
    BOOST_REQUIRE_EQUAL(again_ops.size(), 1u);
    BOOST_TEST(again_ops[0].since_us == (t0_s + 160) * s_us); // not 50's: 150 to 159 saw none
  }
  // Out of its last 100 it is no longer counted.
  book = health::rulebook::shipped();
  book.set("broke_forwards", "last", 49);
  BOOST_TEST(opinions_of(s, "broke_forwards", {}, book).empty());
}

BOOST_AUTO_TEST_CASE(stalled_run_fires_past_10_times_its_median_interval_behind_another_writer) {
  scratch tmp;
  soma::store s{tmp / "s"};
  std::vector<written> fs;
  for (int i = 0; i < 10; ++i)
    fs.push_back({record_at(t0_s + i), {}}); // one a second, the last at t0 + 9
  write_forwards(s, "r", fs);
  BOOST_TEST(opinions_of(s, "stalled_run").empty()); // it is the newest writer
  reading_at(s, "w-1", (t0_s + 19) * s_us);          // 10 s behind: not over 10 x 1 s
  BOOST_TEST(opinions_of(s, "stalled_run").empty());
  reading_at(s, "w-1", (t0_s + 20) * s_us);
  auto ops = opinions_of(s, "stalled_run");
  BOOST_REQUIRE_EQUAL(ops.size(), 1u);
  BOOST_TEST(ops[0].subject == "run r");
  BOOST_TEST(ops[0].value == 11.0);
  BOOST_TEST(ops[0].threshold == 10.0);
  BOOST_TEST(ops[0].threshold_is == "10 x its median interval 1 s");
  BOOST_TEST(ops[0].since_us == (t0_s + 19) * s_us);
  BOOST_TEST(ops[0].state == status::firing);
  reading_at(s, "w-1", (t0_s + 9 + 3601) * s_us); // past `forget`: abandoned, not stalled
  BOOST_TEST(opinions_of(s, "stalled_run").empty());
}

BOOST_AUTO_TEST_CASE(a_run_whose_recorder_closed_has_ended_and_is_not_stalled) {
  scratch tmp;
  soma::store s{tmp / "s"};
  soma::system_config cfg;
  caf::actor_system sys{cfg};
  auto g = soma::graph::somatize(sys, Tokenize{}.named("tokenize") >> Embed{}.named("embed")
                                        >> Score{}.named("score"));
  std::int64_t last_s = 0;
  {
    soma::recorder r{sys, s, {.run = "closed"}};
    for (int i = 0; i < 3; ++i)
      (void) g.forward("the quick brown fox", {.watching = r});
    r.flush();
    auto open = soma::tails(s, {.last = 3, .run = std::string{"closed"}});
    BOOST_TEST(!open.at(0).ended_us.has_value()); // its recorder is still writing
    last_s = open.at(0).records.back().when_s();
  }
  auto tail = soma::tails(s, {.last = 3, .run = std::string{"closed"}});
  BOOST_REQUIRE(tail.at(0).ended_us.has_value());
  BOOST_TEST(*tail.at(0).ended_us >= last_s * s_us);
  BOOST_TEST(*tail.at(0).ended_us <= wall_us());
  // The same forwards with nobody closing them, then another writer a minute on.
  std::vector<written> fs;
  for (auto& r : tail[0].records)
    fs.push_back({r, {}});
  write_forwards(s, "open", fs);
  reading_at(s, "w-1", (last_s + 60) * s_us);
  auto ops = opinions_of(s, "stalled_run");
  BOOST_REQUIRE_EQUAL(ops.size(), 1u);
  BOOST_TEST(ops[0].subject == "run open");
}

BOOST_AUTO_TEST_CASE(non_finite_fires_on_a_summarised_value_not_finite_up_to_the_last_forward) {
  scratch tmp;
  soma::store s{tmp / "s"};
  auto run = [&](const std::string& name, std::vector<std::string> losses) {
    std::vector<written> fs;
    for (std::size_t i = 0; i < losses.size(); ++i)
      fs.push_back({record_at(t0_s + static_cast<std::int64_t>(i), soma::outcome::ok,
                              {{"loss.value", losses[i]}, {"tag.value", "warm"}}),
                    {}});
    write_forwards(s, name, fs);
  };
  run("nan", {"2.1", "1.9", "1.5", "nan", "nan", "nan"});
  run("back", {"2.1", "nan", "1.2"});
  run("inf", {"2.1", "inf"});
  auto ops = opinions_of(s, "non_finite");
  BOOST_REQUIRE_EQUAL(ops.size(), 2u);
  BOOST_TEST(ops[0].subject == "loss.value of run inf");
  BOOST_TEST(ops[0].value == 1.0);
  BOOST_TEST(ops[1].subject == "loss.value of run nan");
  BOOST_TEST(ops[1].measure == "forwards in a row with loss.value nan");
  BOOST_TEST(ops[1].value == 3.0);
  BOOST_TEST(ops[1].since_us == (t0_s + 3) * s_us);
  auto book = health::rulebook::shipped();
  book.set("non_finite", "over", 3);
  BOOST_TEST(opinions_of(s, "non_finite", {}, book).empty());
}

BOOST_AUTO_TEST_CASE(stale_claim_fires_when_its_claimant_is_quiet_over_30_s) {
  scratch tmp;
  soma::store s{tmp / "s"};
  soma::add_trials(s, "st", {{{"x", std::int64_t{1}}}, {{"x", std::int64_t{2}}}});
  auto heard = wall_us();
  reading_at(s, "c-1", heard);
  auto claimed = soma::claim_trial(s, "st", "c-1");
  BOOST_REQUIRE(claimed);
  auto ghost = soma::claim_trial(s, "st", "ghost-9"); // never writes a reading
  BOOST_REQUIRE(ghost);
  // Times from the claim on, which the store stamped: the disk may take its
  // time between the reading and the claim.
  auto from = claimed->claimed_us;
  reading_at(s, "c-1", from); // its claimant reports once more as it claims
  reading_at(s, "w-2", from + 29 * s_us);
  auto ops = opinions_of(s, "stale_claim");
  BOOST_REQUIRE_EQUAL(ops.size(), 1u);
  BOOST_TEST(ops[0].subject == "trial 1 of study st (claimant ghost-9)");
  BOOST_TEST(std::isinf(ops[0].value));
  BOOST_TEST(ops[0].run == "st.1");
  reading_at(s, "w-2", from + 31 * s_us);
  ops = opinions_of(s, "stale_claim");
  BOOST_REQUIRE_EQUAL(ops.size(), 2u);
  BOOST_TEST(ops[0].subject == "trial 0 of study st (claimant c-1)");
  BOOST_TEST(ops[0].value == 31.0, boost::test_tools::tolerance(1e-9));
  BOOST_TEST(ops[0].since_us == from + 30 * s_us);
  BOOST_TEST(ops[0].threshold == 30.0);
  BOOST_TEST(ops[0].threshold_is == "`soma reclaim st --quiet-over 30` would hand it back");
  BOOST_TEST(ops[0].state == status::firing);
  // As of a moment before either claim, nothing was claimed to be stale.
  BOOST_TEST(opinions_of(s, "stale_claim", {.at_us = claimed->claimed_us - 1}).empty());
  // Handed back, it is nobody's claim.
  soma::reclaim(s, "st", 30);
  BOOST_TEST(opinions_of(s, "stale_claim").empty());
}

BOOST_AUTO_TEST_CASE(judged_as_of_a_past_moment_only_what_was_written_by_then_counts) {
  scratch tmp;
  soma::store s{tmp / "s"};
  reading_at(s, "a-1", t0_us); // then stops
  for (int i = 1; i <= 40; ++i)
    reading_at(s, "b-2", t0_us + i * 500'000);
  std::vector<written> fs;
  for (int i = 0; i < 20; ++i)
    fs.push_back({record_at(t0_s + i, i == 15 ? soma::outcome::broke : soma::outcome::ok), {}});
  write_forwards(s, "r", fs);
  BOOST_TEST(opinions_of(s, "quiet_machine").at(0).state == status::firing);
  BOOST_TEST(opinions_of(s, "quiet_machine", {.at_us = t0_us + 2 * s_us}).empty());
  auto then = opinions_of(s, "quiet_machine", {.at_us = t0_us + 5 * s_us});
  BOOST_REQUIRE_EQUAL(then.size(), 1u);
  BOOST_TEST(then[0].state == status::pending);
  BOOST_TEST(then[0].value == 5.0, boost::test_tools::tolerance(1e-9));
  BOOST_TEST(opinions_of(s, "broke_forwards").size() == 1u);
  BOOST_TEST(opinions_of(s, "broke_forwards", {.at_us = (t0_s + 14) * s_us}).empty());
  BOOST_TEST(opinions_of(s, "broke_forwards", {.at_us = (t0_s + 15) * s_us}).size() == 1u);
  // Before the run began it is not judged at all.
  auto j = health::judge(s, health::rulebook::shipped(), {.at_us = (t0_s - 1) * s_us});
  BOOST_TEST(j.runs == 0u);
}

BOOST_AUTO_TEST_CASE(judging_writes_nothing_and_a_run_filter_keeps_its_opinions_only) {
  scratch tmp;
  soma::store s{tmp / "s"};
  reading_at(s, "a-1", t0_us);
  std::vector<written> fs{{record_at(t0_s, soma::outcome::broke), {}}};
  write_forwards(s, "r", fs);
  reading_at(s, "b-2", t0_us + 60 * s_us);
  auto before = s.env().last_txn();
  auto all = health::judge(s, health::rulebook::shipped());
  BOOST_TEST(s.env().last_txn() == before);
  BOOST_TEST(all.opinions.size() == 2u); // quiet a-1, broke r
  auto only = health::judge(s, health::rulebook::shipped(), {.run = std::string{"r"}});
  BOOST_REQUIRE_EQUAL(only.opinions.size(), 1u);
  BOOST_TEST(only.opinions[0].rule == "broke_forwards");
  BOOST_CHECK_THROW((void) health::judge(s, health::rulebook::shipped(), {.run = std::string{"nope"}}),
                    soma::no_run_error);
}

BOOST_AUTO_TEST_SUITE_END()

namespace {

// A rule of one's own: every machine that has served no slice.
class idle_machine : public health::rule {
public:
  std::string name() const override { return "idle_machine"; }
  std::string looks_at() const override { return "readings"; }
  std::string condition() const override { return "served no slice"; }
  std::vector<health::setting> defaults() const override {
    return {{"over", -1, ""}, {"for", 0, ""}, {"enabled", 1, ""}};
  }
  void judge(const health::evidence& e, const health::settings& s,
             std::vector<health::opinion>& out) const override {
    for (auto& [id, rs] : e.machines)
      if (static_cast<double>(rs[0].served) <= 0) {
        health::opinion o;
        o.rule = name();
        o.kind = "machine";
        o.subject = "machine " + id;
        o.measure = "served";
        o.value = 0;
        o.threshold = s.over();
        o.since_us = rs[0].when_us;
        o.state = health::status::firing;
        out.push_back(o);
      }
  }
};

class no_for : public idle_machine {
public:
  std::vector<health::setting> defaults() const override { return {{"over", 0, ""}, {"enabled", 1, ""}}; }
};

std::string error_of(const std::string& text) {
  auto book = health::rulebook::shipped();
  try {
    book.read(text, "rules.conf");
  } catch (const health::rules_error& e) {
    return e.what();
  }
  return "(no error)";
}

} // namespace

BOOST_AUTO_TEST_SUITE(rulebook)

BOOST_AUTO_TEST_CASE(a_rules_file_overrides_thresholds_and_the_judgement_follows) {
  scratch tmp;
  soma::store s{tmp / "s"};
  reading_at(s, "a-1", t0_us);
  reading_at(s, "b-2", t0_us + 2'600'000);
  BOOST_TEST(opinions_of(s, "quiet_machine").size() == 1u);
  auto file = tmp / "rules.conf";
  std::ofstream{file} << "# fewer alarms\n[quiet_machine]\nover = 6   # intervals\nfor = 1.5m\n\n"
                         "[slow_node]\nenabled = false\n";
  auto book = health::rulebook::shipped();
  book.read_file(file);
  BOOST_TEST(book.at("quiet_machine").settings.over() == 6.0);
  BOOST_TEST(book.at("quiet_machine").settings.for_us() == 90 * s_us);
  BOOST_TEST(!book.at("slow_node").settings.enabled());
  BOOST_TEST(book.at("busy_machine").settings.over() == 0.9); // untouched
  BOOST_TEST(opinions_of(s, "quiet_machine", {}, book).empty());
  reading_at(s, "b-2", t0_us + 3'100'000);
  auto ops = opinions_of(s, "quiet_machine", {}, book);
  BOOST_REQUIRE_EQUAL(ops.size(), 1u);
  BOOST_TEST(ops[0].threshold == 3.0);
  BOOST_TEST(ops[0].for_us == 90 * s_us);
}

BOOST_AUTO_TEST_CASE(a_bad_rules_file_is_an_error_naming_its_line_and_what_to_write) {
  BOOST_TEST(error_of("[quiet_machines]\n").starts_with(
    "rules.conf:1: there is no rule 'quiet_machines'; the rules are: quiet_machine, busy_machine,"));
  BOOST_TEST(error_of("\n[busy_machine]\nthreshold = 3\n")
             == "rules.conf:3: rule 'busy_machine' has no setting 'threshold'; its settings are: "
                "over, for, enabled");
  BOOST_TEST(error_of("[busy_machine]\nover = high\n")
             == "rules.conf:2: 'high' is not a number (for over)");
  BOOST_TEST(error_of("[busy_machine]\nfor = 5 parsecs\n")
             == "rules.conf:2: '5 parsecs' is not a duration; write seconds (30), or a number with "
                "ms, s, m or h (500ms, 30s, 2m, 1h)");
  BOOST_TEST(error_of("[busy_machine]\nfor = -5\n")
             == "rules.conf:2: rule 'busy_machine' setting 'for' is a duration of 0 or more seconds, at most 1e9, not -5");
  BOOST_TEST(error_of("over = 3\n")
             == "rules.conf:1: a setting before any [rule]: name the rule it is for first");
  BOOST_TEST(error_of("[slow_node]\nenabled = maybe\n")
             == "rules.conf:2: enabled is true or false, not 'maybe'");
  BOOST_TEST(error_of("[slow_node\n")
             == "rules.conf:1: a section is a rule's name in brackets, such as [quiet_machine]");
  BOOST_TEST(error_of("[slow_node]\njust words\n")
             == "rules.conf:2: 'just words' is neither a [rule] nor a setting; write name = value");
  auto book = health::rulebook::shipped();
  BOOST_CHECK_EXCEPTION(book.read_file("/nonexistent/rules.conf"), health::rules_error,
                        [](const health::rules_error& e) {
                          return std::string{e.what()}.starts_with(
                            "cannot read the rules file '/nonexistent/rules.conf'");
                        });
}

BOOST_AUTO_TEST_CASE(rules_files_as_editors_write_them_and_settings_out_of_range) {
  auto book = health::rulebook::shipped();
  book.read("\xEF\xBB\xBF[quiet_machine]\r\nover = +3\r\nfor = 500ms\r\n[slow_node]\r\nenabled = 0\r\n",
            "crlf.conf");
  BOOST_TEST(book.at("quiet_machine").settings.over() == 3.0);
  BOOST_TEST(book.at("quiet_machine").settings.for_us() == 500'000);
  BOOST_TEST(!book.at("slow_node").settings.enabled());
  BOOST_TEST(error_of("[slow_node]\nlast = -1\n")
             == "rules.conf:2: rule 'slow_node' setting 'last' is a number from 0 to 1e9, not -1");
  BOOST_TEST(error_of("[busy_machine]\nfor = 1e300\n")
             == "rules.conf:2: rule 'busy_machine' setting 'for' is a duration of 0 or more seconds, "
                "at most 1e9, not 1e+300");
  BOOST_TEST(error_of("[busy_machine]\nover = 1e300\n")
             == "rules.conf:2: rule 'busy_machine' setting 'over' is a number from -1e15 to 1e15, not 1e+300");
  scratch tmp;
  BOOST_CHECK_EXCEPTION(book.read_file(tmp.dir), health::rules_error, [&](const health::rules_error& e) {
    return std::string{e.what()} == "'" + tmp.dir + "' is a directory, not a rules file";
  });
}

BOOST_AUTO_TEST_CASE(a_rule_of_ones_own_joins_a_rulebook_and_judges_beside_the_shipped_ones) {
  scratch tmp;
  soma::store s{tmp / "s"};
  reading_at(s, "a-1", t0_us);
  auto book = health::rulebook::shipped();
  BOOST_TEST(book.rules().size() == 10u);
  book.add(std::make_unique<idle_machine>());
  auto ops = opinions_of(s, "idle_machine", {}, book);
  BOOST_REQUIRE_EQUAL(ops.size(), 1u);
  BOOST_TEST(ops[0].subject == "machine a-1");
  book.set("idle_machine", "enabled", 0);
  BOOST_TEST(opinions_of(s, "idle_machine", {}, book).empty());
  BOOST_CHECK_THROW(book.add(std::make_unique<idle_machine>()), health::rules_error);
  health::rulebook empty;
  BOOST_CHECK_EXCEPTION(empty.add(std::make_unique<no_for>()), health::rules_error,
                        [](const health::rules_error& e) {
                          return std::string{e.what()}
                                 == "rule 'idle_machine' has no setting 'for'; every rule has over, for and enabled";
                        });
  BOOST_TEST(health::judge(s, empty).opinions.empty());
}

BOOST_AUTO_TEST_SUITE_END()
