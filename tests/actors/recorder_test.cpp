#include <boost/test/unit_test.hpp>

#include <thread>

#include <unistd.h>

#include "../store/scratch.hpp"
#include "fixture.hpp"
#include "soma/forward_error.hpp"
#include "soma/recorder.hpp"
#include "soma/store/detail/environment.hpp"
#include "soma/store/keys.hpp"
#include "soma/store/readers.hpp"

using namespace soma_test;

namespace {

struct recording : system_fixture {
  scratch tmp;
  soma::store store{tmp / "store"};
  decltype(seed_graph(std::declval<caf::actor_system&>())) g = seed_graph(sys);

  // The seed's loop: a forward, then the loss told after it.
  void record(soma::recorder& rec, int steps, int from = 0) {
    for (int step = from; step < from + steps; ++step) {
      g.forward("the quick brown fox jumps", {.watching = rec});
      rec.tell(soma::fact{"loss", {{"value", 2.0 * std::pow(0.93, step) + 0.1}}});
    }
  }
};

} // namespace

BOOST_FIXTURE_TEST_SUITE(recorder, recording)

BOOST_AUTO_TEST_CASE(a_run_keeps_its_params_and_tags_and_says_where_it_stands) {
  auto row = [&] { return soma::run_summary(store, "sweep"); };
  soma::values params{{"lr", 0.05}, {"depth", std::int64_t{4}}, {"data", "wiki"}, {"warm", true}};
  {
    soma::recorder rec{sys, store, {.run = "sweep", .params = params, .tags = {"baseline", "gpu"}}};
    record(rec, 3);
    rec.flush();
    auto r = row();
    BOOST_TEST(r.params == params); // typed as given: a real, an int, a text, a flag
    BOOST_TEST((r.tags == std::vector<std::string>{"baseline", "gpu"}));
    BOOST_TEST(r.status == soma::run_status::running, r.how);
    BOOST_TEST(r.how == "its writer, pid " + std::to_string(::getpid()) + " on this machine, lives");
    BOOST_TEST(!r.ended_us.has_value());
  }
  auto closed = row();
  BOOST_TEST(closed.status == soma::run_status::finished);
  BOOST_TEST(closed.how.starts_with("its recorder closed it at "));
  BOOST_TEST(closed.ended_us.has_value());
  BOOST_TEST(closed.params == params); // closing keeps them
  {
    // A later recorder that says nothing keeps what the run was; it runs again.
    soma::recorder rec{sys, store, {.run = "sweep"}};
    record(rec, 1, 3);
    rec.flush();
    BOOST_TEST(row().params == params);
    BOOST_TEST(row().status == soma::run_status::running);
  }
  {
    // One that says what the run is now replaces it.
    soma::recorder rec{sys, store, {.run = "sweep", .params = {{"lr", 0.01}}}};
    record(rec, 1, 4);
  }
  BOOST_TEST((row().params == soma::values{{"lr", 0.01}}));
  BOOST_TEST(row().tags.empty());
  BOOST_TEST(row().forwards == 5u);
  BOOST_TEST(row().status == soma::run_status::finished);
}

BOOST_AUTO_TEST_CASE(one_record_per_forward_with_every_field) {
  std::vector<soma::fact> seen;
  {
    soma::recorder rec{sys, store, {.run = "tuesday", .summarising = {"loss"}}};
    for (int step = 0; step < 40; ++step) {
      seen.clear();
      g.forward("the quick brown fox jumps",
                {.watching = {rec, [&](const soma::fact& f) { seen.push_back(f); }}});
      rec.tell(soma::fact{"loss", {{"value", 2.0 * std::pow(0.93, step) + 0.1}}});
    }
    rec.flush();
    BOOST_TEST(store.bound().size() == 40u);
  }
  auto fw = soma::forwards(store, "tuesday");
  BOOST_REQUIRE_EQUAL(fw.size(), 40u);
  auto now = std::chrono::duration_cast<std::chrono::seconds>(
               std::chrono::system_clock::now().time_since_epoch()).count();
  for (std::uint64_t i = 0; i < 40; ++i) {
    BOOST_TEST(fw[i].forward == i);
    BOOST_TEST(fw[i].state == soma::outcome::ok);
    BOOST_TEST(fw[i].nodes == 3u);
    BOOST_TEST(fw[i].when_s() <= now);
    BOOST_TEST(fw[i].when_s() >= now - 60);
    BOOST_REQUIRE_EQUAL(fw[i].summary.size(), 1u);
    BOOST_TEST(fw[i].summary[0].key == "loss.value");
  }
  // Told a real, kept a real: the loss reads back as the very double.
  BOOST_TEST(fw[0].summary[0].value == 2.1);
  BOOST_TEST(fw[1].summary[0].value == 1.9600000000000002);
  BOOST_TEST(fw[1].summary[0].value.is_real());
  // The blob holds what a watcher was told, then the loss told after.
  auto last = soma::facts(store, "tuesday", 39);
  BOOST_REQUIRE_EQUAL(last.size(), seen.size() + 1);
  for (size_t i = 0; i < seen.size(); ++i)
    BOOST_TEST(last[i] == seen[i]);
  BOOST_TEST(last.back().name == "loss");
  BOOST_TEST(fw[39].took_us == seen.back()["took_us"].integer_or(-1));
  BOOST_TEST(last[0]["took_us"].is_integer()); // a number stays a number in the store
  BOOST_TEST(last.back()["value"].is_real());
  auto rs = soma::runs(store);
  BOOST_REQUIRE_EQUAL(rs.size(), 1u);
  BOOST_TEST(rs[0].forwards == 40u);
  BOOST_TEST(rs[0].broke == 0u);
  std::int64_t sum = 0;
  for (auto& r : fw)
    sum += r.took_us;
  BOOST_TEST(rs[0].took_us == sum);
}

BOOST_AUTO_TEST_CASE(facts_reused_from_written_forwards_hold_only_their_new_forwards_fields) {
  // Written forwards come back to the recorder, whose inbox copies the next
  // facts into theirs (docs/architecture.md, "Memory goes back where it
  // came from"): every forward must read back exactly its own facts, never
  // a field left from a fact that held more.
  std::vector<std::vector<soma::fact>> expected;
  {
    soma::recorder rec{sys, store, {.run = "reused", .batch = 4}};
    for (int step = 0; step < 60; ++step) {
      std::vector<soma::fact> seen;
      g.forward("the quick brown fox jumps",
                {.watching = {rec, [&](const soma::fact& f) { seen.push_back(f); }}});
      soma::fact told{"note", {{"step", step}}};
      for (int k = 0; k < step % 4; ++k) // 1 to 4 fields, texts of changing length
        told.fields.emplace_back("t" + std::to_string(k), std::string(static_cast<std::size_t>(step % 7 * 9), static_cast<char>('a' + k)));
      rec.tell(told);
      seen.push_back(told);
      expected.push_back(std::move(seen));
      if (step % 5 == 4)
        rec.flush(); // written, and handed back before the next forwards
    }
  }
  for (std::uint64_t i = 0; i < 60; ++i) {
    auto got = soma::facts(store, "reused", i);
    BOOST_TEST(got == expected[i], boost::test_tools::per_element());
  }
}

BOOST_AUTO_TEST_CASE(curve_reads_the_same_either_way_and_says_which) {
  {
    soma::recorder summarised{sys, store, {.run = "scan", .summarising = {"loss"}}};
    record(summarised, 30);
  }
  {
    soma::recorder plain{sys, store, {.run = "fetch"}};
    record(plain, 30);
  }
  BOOST_TEST(soma::curve_costs(store, "scan") == soma::curve_cost::scan);
  BOOST_TEST(soma::curve_costs(store, "scan", "loss.value") == soma::curve_cost::scan);
  BOOST_TEST(soma::curve_costs(store, "fetch") == soma::curve_cost::fetch);
  auto took_a = soma::curve_cost::fetch, took_b = soma::curve_cost::scan;
  auto a = soma::curve(store, "scan", "loss", &took_a);
  auto b = soma::curve(store, "fetch", "loss.value", &took_b);
  BOOST_TEST(took_a == soma::curve_cost::scan);
  BOOST_TEST(took_b == soma::curve_cost::fetch);
  BOOST_REQUIRE_EQUAL(a.size(), 30u);
  BOOST_TEST((a == b));
  for (std::uint64_t i = 0; i < 30; ++i) {
    BOOST_TEST(a[i].first == i);
    BOOST_TEST(a[i].second == 2.0 * std::pow(0.93, static_cast<double>(i)) + 0.1);
  }
  // A fact nobody told is an empty curve, not an error.
  BOOST_TEST(soma::curve(store, "scan", "accuracy").empty());
  // The scan really reads only records: with every blob of the run gone, the
  // summarised curve still answers in full.
  store.env().write([&](MDB_txn* txn, auto& dbi) {
    for (std::uint64_t n = 0; n < 30; ++n)
      store.env().del(txn, dbi(soma::detail::db::facts), soma::detail::record_key("scan", n));
  });
  BOOST_TEST((soma::curve(store, "scan") == a));
  BOOST_CHECK_THROW((void) soma::facts(store, "scan", 0), soma::store_error);
}

BOOST_AUTO_TEST_CASE(a_curve_is_whole_whichever_recorders_wrote_the_run) {
  // Summarised, then continued without: the later records do not hold it,
  // so the curve must fetch, and must still have every point.
  {
    soma::recorder a{sys, store, {.run = "mixed", .summarising = {"loss"}}};
    record(a, 5);
  }
  {
    soma::recorder b{sys, store, {.run = "mixed"}};
    record(b, 3, 5);
  }
  BOOST_TEST(soma::curve_costs(store, "mixed") == soma::curve_cost::fetch);
  BOOST_TEST(soma::curve(store, "mixed").size() == 8u);
  // Not summarised, then continued summarising: still a fetch, still whole.
  {
    soma::recorder a{sys, store, {.run = "later"}};
    record(a, 5);
  }
  {
    soma::recorder b{sys, store, {.run = "later", .summarising = {"loss"}}};
    record(b, 3, 5);
  }
  BOOST_TEST(soma::curve_costs(store, "later") == soma::curve_cost::fetch);
  BOOST_TEST(soma::curve(store, "later").size() == 8u);
  // An overwrite starts the run's metadata again.
  {
    soma::recorder c{sys, store, {.run = "later", .existing = soma::existing_run::overwrite}};
    record(c, 3);
  }
  BOOST_TEST(soma::curve_costs(store, "later") == soma::curve_cost::fetch);
  BOOST_TEST(soma::curve(store, "later").size() == 3u);
  {
    soma::recorder d{sys, store, {.run = "later", .summarising = {"loss"}, .existing = soma::existing_run::overwrite}};
    record(d, 4);
  }
  BOOST_TEST(soma::curve_costs(store, "later") == soma::curve_cost::scan);
  BOOST_TEST(soma::curve(store, "later").size() == 4u);
}

BOOST_AUTO_TEST_CASE(the_engines_words_are_not_told_to_a_recorder) {
  soma::recorder rec{sys, store, {.run = "r"}};
  for (auto word : {"finished", "broke", "ran"})
    BOOST_CHECK_THROW(rec.tell(soma::fact{word, {{"took_us", "n/a"}}}), std::invalid_argument);
  BOOST_CHECK_THROW(rec.tell(soma::fact{"mine", {{"fact", "x"}}}), std::invalid_argument);
  record(rec, 3);
  rec.flush();
  BOOST_TEST(soma::forwards(store, "r").size() == 3u);
}

BOOST_AUTO_TEST_CASE(nodes_of_the_last_n_are_the_aggregate_of_those_n) {
  {
    soma::recorder rec{sys, store, {.run = "r"}};
    record(rec, 50);
  }
  auto all = soma::nodes(store, "r");
  auto tail = soma::nodes(store, "r", 10);
  BOOST_REQUIRE_EQUAL(all.size(), 3u);
  BOOST_REQUIRE_EQUAL(tail.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    BOOST_TEST(all[i].ran == 50u);
    BOOST_TEST(tail[i].ran == 10u);
    BOOST_TEST(all[i].node == tail[i].node);
    // Add up the last 10 blobs by hand.
    std::int64_t took = 0;
    for (std::uint64_t n = 40; n < 50; ++n)
      for (auto& f : soma::facts(store, "r", n))
        if (f.name == "ran" && f["node"] == tail[i].node)
          took += f["took_us"].integer_or(-1);
    BOOST_TEST(tail[i].took_us == took);
    BOOST_TEST(tail[i].mean_us == static_cast<double>(took) / 10.0);
  }
  BOOST_TEST(all[0].node == "tokenize");
  BOOST_TEST(soma::nodes(store, "r", 1000).at(0).ran == 50u);
}

BOOST_AUTO_TEST_CASE(a_broke_forward_is_recorded_broke) {
  {
    soma::recorder rec{sys, store, {.run = "r"}};
    g.forward("one two", {.watching = rec});
    BOOST_CHECK_THROW(g.forward("", {.watching = rec}), soma::forward_error);
    g.forward("three", {.watching = rec});
  }
  auto fw = soma::forwards(store, "r");
  BOOST_REQUIRE_EQUAL(fw.size(), 3u);
  BOOST_TEST(fw[0].state == soma::outcome::ok);
  BOOST_TEST(fw[1].state == soma::outcome::broke);
  BOOST_TEST(fw[1].nodes == 3u);
  BOOST_TEST(fw[2].state == soma::outcome::ok);
  auto told = soma::facts(store, "r", 1);
  BOOST_TEST(told.back().name == "broke");
  BOOST_TEST(soma::runs(store).at(0).broke == 1u);
  auto ns = soma::nodes(store, "r");
  BOOST_TEST(ns[2].node == "score");
  BOOST_TEST(ns[2].failed == 1u);
  BOOST_TEST(ns[2].ran == 2u);
}

BOOST_AUTO_TEST_CASE(a_second_recorder_continues_and_overwrite_is_explicit) {
  {
    soma::recorder rec{sys, store, {.run = "r", .summarising = {"loss"}}};
    record(rec, 5);
  }
  {
    soma::recorder again{sys, store, {.run = "r", .summarising = {"loss"}}};
    record(again, 3, 5);
  }
  auto fw = soma::forwards(store, "r");
  BOOST_REQUIRE_EQUAL(fw.size(), 8u);
  for (std::uint64_t i = 0; i < 8; ++i)
    BOOST_TEST(fw[i].forward == i);
  BOOST_TEST(soma::curve(store, "r").at(7).second == 2.0 * std::pow(0.93, 7) + 0.1);
  // Not silently: the run says a second execution began at forward 5.
  auto row = soma::run_summary(store, "r");
  BOOST_REQUIRE_EQUAL(row.executions.size(), 2u);
  BOOST_TEST(row.executions[1].forward == 5u);
  // A recorder that refuses an existing run says so when it is made, and
  // writes nothing; on a run the store does not hold it records.
  try {
    soma::recorder no{sys, store, {.run = "r", .existing = soma::existing_run::refuse}};
    BOOST_FAIL("a recorder recorded an existing run it was to refuse");
  } catch (const soma::store_error& e) {
    BOOST_TEST((e.trouble() == soma::store_trouble::refused));
    BOOST_TEST(std::string{e.what()}.starts_with(
                 "cannot record run 'r': the store '" + store.path()
                 + "' holds 8 forwards of it already (2 executions, the last by "),
               e.what());
    BOOST_TEST(std::string{e.what()}.find("give another run id, or existing_run::continue_run")
                 != std::string::npos);
  }
  BOOST_TEST(soma::forwards(store, "r").size() == 8u);
  {
    soma::recorder fresh_run{sys, store, {.run = "r2", .existing = soma::existing_run::refuse}};
    record(fresh_run, 1);
  }
  BOOST_TEST(soma::forwards(store, "r2").size() == 1u);
  {
    soma::recorder fresh{sys, store, {.run = "r", .existing = soma::existing_run::overwrite}};
    record(fresh, 2);
  }
  fw = soma::forwards(store, "r");
  BOOST_REQUIRE_EQUAL(fw.size(), 2u);
  BOOST_TEST(fw[1].forward == 1u);
}

BOOST_AUTO_TEST_CASE(facts_told_before_any_forward_go_with_the_first) {
  {
    soma::recorder rec{sys, store, {.run = "r", .summarising = {"setup"}}};
    rec.tell(soma::fact{"setup", {{"lr", 0.1}}});
    g.forward("a b", {.watching = rec});
  }
  auto fw = soma::forwards(store, "r");
  BOOST_REQUIRE_EQUAL(fw.size(), 1u);
  BOOST_TEST(fw[0].summary.at(0).key == "setup.lr");
  BOOST_TEST(soma::facts(store, "r", 0).front().name == "setup");
}

BOOST_AUTO_TEST_CASE(a_record_is_durable_within_its_bound_without_a_flush) {
  soma::recorder rec{sys, store, {.run = "r", .durable_within = std::chrono::milliseconds{100}}};
  g.forward("a b c", {.watching = rec});
  // Another read, as another process would see it: no flush was asked for.
  // 100 ms, plus the write itself, plus slack for a loaded machine.
  auto until = std::chrono::steady_clock::now() + 600ms;
  while (store.bound().empty() && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(10ms);
  BOOST_TEST(store.bound().size() == 1u);
}

BOOST_AUTO_TEST_CASE(overlapping_forwards_keep_their_own_facts) {
  {
    soma::recorder rec{sys, store, {.run = "r"}};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
      threads.emplace_back([&] {
        for (int i = 0; i < 50; ++i)
          g.forward("the quick brown fox", {.watching = rec});
      });
    for (auto& t : threads)
      t.join();
  }
  auto fw = soma::forwards(store, "r");
  BOOST_REQUIRE_EQUAL(fw.size(), 200u);
  for (std::uint64_t i = 0; i < 200; ++i) {
    BOOST_TEST(fw[i].state == soma::outcome::ok);
    auto told = soma::facts(store, "r", i);
    BOOST_REQUIRE_EQUAL(told.size(), 4u);
    BOOST_TEST(told[0]["node"] == "tokenize");
    BOOST_TEST(told[3].name == "finished");
  }
}

BOOST_AUTO_TEST_CASE(a_run_id_that_cannot_be_a_key_is_refused) {
  for (const std::string& bad : std::vector<std::string>{"", "a/b", "x\ny", std::string(600, 'r')}) {
    try {
      soma::recorder rec{sys, store, {.run = bad}};
      BOOST_FAIL("recorded a run named '" << bad << "'");
    } catch (const std::invalid_argument& e) {
      BOOST_TEST(std::string{e.what()}.starts_with("cannot record: "));
    }
  }
  BOOST_TEST(store.bound().empty());
}

BOOST_AUTO_TEST_SUITE_END()
