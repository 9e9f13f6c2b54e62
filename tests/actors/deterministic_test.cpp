// The graph's node actors and driver, a forward's deadline, a cached node,
// the recorder's batching, the reporter's clock and backoff, and a
// claimant's readings, message by message under CAF's deterministic test
// scheduler (deterministic.hpp): no sleeps. A deadline's timer, the
// recorder's durability bound and the reporter's intervals are the test
// clock's, moved on by hand. (A node also compares a deadline with the wall
// clock as a forward reaches it: the deadlines here are an hour, which no
// run of these tests comes near.)

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <chrono>
#include <optional>

#include <caf/scoped_actor.hpp>

#include "../store/scratch.hpp"
#include "deterministic.hpp"
#include "fixture.hpp"
#include "soma/error.hpp"
#include "soma/machine.hpp"
#include "soma/recorder.hpp"
#include "soma/reporter.hpp"
#include "soma/store/readers.hpp"
#include "soma/store/readings.hpp"
#include "soma/store/standing.hpp"
#include "soma/store/trials.hpp"
#include "soma/trials/claimant.hpp"

using namespace soma_test;
using namespace std::chrono_literals;

namespace {

// Whose message runs: each of soma's actors names itself.
const std::string driver = "soma.graph", timer = "soma.deadline", cache_writer = "soma.cache_writer";
const std::string node = "soma.node", recorder = "soma.recorder", record_writer = "soma.record_writer";

using said_list = std::vector<std::string>;

struct graph_fixture : deterministic_fixture {
  caf::scoped_actor self{sys};
  said_list said; ///< what the forward's callable watcher was told: "ran tokenize"

  soma::forward_options watched(soma::forward_options o = {}) {
    o.watching = [this](const soma::fact& f) {
      said.push_back(f.name + (f.has("node") ? " " + std::string{f["node"].text()} : ""));
    };
    return o;
  }

  /// Asks the graph's driver for a forward of `x`, as an actor does.
  template <class G, class In>
  void ask(const G& g, In x, soma::forward_options o) {
    self->send(g.actor(), soma::forward_atom::value, std::move(x), std::move(o));
  }

  /// Runs every message waiting (and those they cause); whose each was.
  said_list run_all() {
    said_list ran;
    while (sched.has_job()) {
      ran.push_back(next());
      sched.run_once();
    }
    return ran;
  }

  /// The answer the asking actor has already (none waits: nothing).
  template <class T>
  std::optional<T> answer() {
    std::optional<T> out;
    self->receive([&](T& x) { out = std::move(x); }, [](caf::error&) {}, caf::after(0s) >> [] {});
    return out;
  }

  /// The error the asking actor has already (none: an empty error).
  caf::error error() {
    caf::error out;
    self->receive([&](caf::error& e) { out = std::move(e); }, caf::after(0s) >> [] {});
    return out;
  }
};

/// Stops `a` when it goes out of scope and runs what that causes: an actor
/// whose callbacks hold the test's locals ends before they do, whether the
/// test passed or a REQUIRE left it early.
struct stopping {
  caf::actor a;
  caf::scheduler::test_coordinator& sched;
  ~stopping() {
    caf::anon_send_exit(a, caf::exit_reason::user_shutdown);
    sched.run();
  }
};

std::size_t count(const said_list& ran, const std::string& whom) {
  return static_cast<std::size_t>(std::count(ran.begin(), ran.end(), whom));
}

} // namespace

BOOST_FIXTURE_TEST_SUITE(deterministic, graph_fixture)

BOOST_AUTO_TEST_CASE(a_forward_goes_node_to_node_one_message_each) {
  auto g = seed_graph(sys);
  sched.run();
  ask(g, std::string{"a bb ccc"}, watched());
  BOOST_REQUIRE(run_next(driver));
  BOOST_TEST(said.empty());
  BOOST_REQUIRE(run_next(node));
  BOOST_TEST(said == said_list{"ran tokenize"}, boost::test_tools::per_element());
  BOOST_REQUIRE(run_next(node));
  BOOST_TEST(said == (said_list{"ran tokenize", "ran embed"}), boost::test_tools::per_element());
  BOOST_REQUIRE(run_next(node));
  // The last node says finished and answers: no message more.
  BOOST_TEST(said == (said_list{"ran tokenize", "ran embed", "ran score", "finished"}),
             boost::test_tools::per_element());
  BOOST_TEST(!sched.has_job());
  BOOST_TEST(answer<double>().value_or(-1) == 1.0); // lengths 1 2 3, halved, averaged
}

BOOST_AUTO_TEST_CASE(two_forwards_in_flight_each_keep_their_facts_in_order_and_answer_in_order) {
  auto g = seed_graph(sys);
  sched.run();
  said_list first, second;
  auto into = [](said_list& l) {
    return soma::forward_options{.watching = [&l](const soma::fact& f) { l.push_back(f.name); }};
  };
  ask(g, std::string{"a bb ccc"}, into(first));
  ask(g, std::string{"dddd"}, into(second));
  auto ran = run_all();
  // Two through the driver, then each node took both, one message each.
  BOOST_TEST(ran == (said_list{driver, driver, node, node, node, node, node, node}),
             boost::test_tools::per_element());
  said_list whole{"ran", "ran", "ran", "finished"};
  BOOST_TEST(first == whole, boost::test_tools::per_element());
  BOOST_TEST(second == whole, boost::test_tools::per_element());
  BOOST_TEST(answer<double>().value_or(-1) == 1.0);
  BOOST_TEST(answer<double>().value_or(-1) == 2.0);
}

BOOST_AUTO_TEST_CASE(a_node_that_throws_ends_the_forward_there_with_its_error) {
  auto g = seed_graph(sys);
  sched.run();
  ask(g, std::string{""}, watched());
  BOOST_TEST(run_all() == (said_list{driver, node, node, node}), boost::test_tools::per_element());
  BOOST_TEST(said == (said_list{"ran tokenize", "ran embed", "failed score", "broke score"}),
             boost::test_tools::per_element());
  auto e = error();
  BOOST_REQUIRE(e);
  BOOST_TEST(e.code() == static_cast<std::uint8_t>(soma::error_code::node_failed));
  BOOST_TEST(soma::error_node(e) == "score");
  BOOST_TEST(soma::describe(e).find("nothing to score: the text had no words") != std::string::npos,
             soma::describe(e));
}

BOOST_AUTO_TEST_CASE(a_deadline_ends_the_forward_at_the_node_it_reached_and_it_goes_no_further) {
  auto g = seed_graph(sys);
  sched.run();
  ask(g, std::string{"a bb ccc"}, watched({.deadline = 1h}));
  BOOST_REQUIRE(run_next(driver)); // spawns the forward's timer, sends the step on
  BOOST_REQUIRE(run_next(timer));  // the timer starts; its expiry waits on the clock
  BOOST_TEST(sched.has_pending_timeout());
  BOOST_TEST(sched.advance_time(1h - 1ms) == 0u);
  BOOST_TEST(sched.advance_time(1ms) == 1u); // an hour: the timer is told
  BOOST_TEST(next() == node);                // the step came first, ...
  sched.run_once_lifo();                     // ... but the timer runs before it
  BOOST_TEST(said.empty()); // the timer ends the forward; the node says so
  BOOST_REQUIRE(run_next(node));
  BOOST_TEST(said == said_list{"broke tokenize"}, boost::test_tools::per_element());
  BOOST_TEST(!sched.has_job()); // tokenize did not run, and nothing went on
  auto e = error();
  BOOST_REQUIRE(e);
  BOOST_TEST(soma::describe(e).find("the forward did not end within 3600000 ms (forward_options.deadline)")
               != std::string::npos,
             soma::describe(e));
  BOOST_TEST(soma::error_node(e) == "tokenize"); // the error names the node the fact does
}

BOOST_AUTO_TEST_CASE(a_forward_that_ends_before_its_deadline_leaves_its_timer_nothing_to_do) {
  auto g = seed_graph(sys);
  sched.run();
  ask(g, std::string{"a bb ccc"}, watched({.deadline = 1h}));
  BOOST_TEST(run_all() == (said_list{driver, timer, node, node, node, timer}),
             boost::test_tools::per_element()); // the forward tells its timer to go
  BOOST_TEST(answer<double>().value_or(-1) == 1.0);
  sched.advance_time(1h);
  run_all();
  BOOST_TEST(said.size() == 4u); // ran x 3, finished: no broke
  BOOST_TEST(!error());
}

BOOST_AUTO_TEST_CASE(a_cached_node_waits_for_its_writer_so_kept_comes_before_the_next_node) {
  scratch tmp;
  soma::store kept{tmp / "kept"};
  auto g = soma::graph::somatize(sys, Tokenize{}.named("tokenize").frozen().cached() >> Embed{}.named("embed"));
  sched.run();
  ask(g, std::string{"a bb ccc"}, watched({.store = kept}));
  BOOST_REQUIRE(run_next(driver));
  BOOST_REQUIRE(run_next(node));
  BOOST_TEST(said == said_list{"ran tokenize"}, boost::test_tools::per_element());
  BOOST_REQUIRE(run_next(cache_writer)); // keeps the output, on LMDB
  BOOST_TEST(said.size() == 1u);
  BOOST_REQUIRE(run_next(node)); // the writer's answer
  BOOST_TEST(said == (said_list{"ran tokenize", "kept tokenize"}), boost::test_tools::per_element());
  BOOST_REQUIRE(run_next(node));
  BOOST_TEST(said == (said_list{"ran tokenize", "kept tokenize", "ran embed", "finished"}),
             boost::test_tools::per_element());
  BOOST_TEST(!sched.has_job());
  BOOST_TEST((answer<std::vector<double>>().value_or(std::vector<double>{}) == std::vector<double>{0.5, 1.0, 1.5}));
  // Again: recalled at the node, with no message to the writer.
  said.clear();
  ask(g, std::string{"a bb ccc"}, watched({.store = kept}));
  BOOST_TEST(run_all() == (said_list{driver, node, node}), boost::test_tools::per_element());
  BOOST_TEST(said == (said_list{"recalled tokenize", "ran embed", "finished"}),
             boost::test_tools::per_element());
  BOOST_TEST((answer<std::vector<double>>().value_or(std::vector<double>{}) == std::vector<double>{0.5, 1.0, 1.5}));
}

BOOST_AUTO_TEST_CASE(the_recorder_writes_at_its_durability_bound_or_a_full_batch_once_per_batch) {
  scratch tmp;
  soma::store st{tmp / "s"};
  auto g = seed_graph(sys);
  soma::recorder rec{sys, st, {.run = "r", .durable_within = 100ms, .batch = 3}};
  sched.run();
  auto written = [&]() -> std::size_t {
    try {
      return soma::forwards(st, "r").size();
    } catch (const soma::no_run_error&) {
      return 0;
    }
  };

  // Two forwards in flight: their facts interleave, node by node. The
  // recorder is woken once, and writes nothing before its bound: two
  // forwards are not a batch of three, however their facts alternate.
  for (int i = 0; i < 2; ++i)
    ask(g, std::string{"a bb ccc"}, {.watching = rec});
  auto ran = run_all();
  BOOST_TEST(count(ran, recorder) == 1u);
  BOOST_TEST(count(ran, record_writer) == 0u);
  BOOST_TEST(written() == 0u);
  BOOST_TEST(sched.advance_time(99ms) == 0u);
  BOOST_TEST(sched.advance_time(1ms) == 1u); // 100 ms: the tick
  BOOST_TEST(run_all() == (said_list{recorder, record_writer, recorder}), boost::test_tools::per_element());
  BOOST_TEST(written() == 2u);

  // Three more: a full batch once the third ended, written at once, in one
  // write, with each forward whole (never first written open).
  for (int i = 0; i < 3; ++i)
    ask(g, std::string{"a bb ccc"}, {.watching = rec});
  ran = run_all();
  BOOST_TEST(count(ran, recorder) == 3u); // woken, full, the writer's answer
  BOOST_TEST(count(ran, record_writer) == 1u);
  auto records = soma::forwards(st, "r");
  BOOST_REQUIRE_EQUAL(records.size(), 5u);
  for (std::uint64_t n = 0; n < 5; ++n) {
    BOOST_TEST(records[n].forward == n);
    BOOST_TEST((records[n].state == soma::outcome::ok));
    BOOST_TEST(records[n].nodes == 3u);
  }

  // A fact told after the last forward joins it; flush writes it now,
  // whatever the clock says.
  rec.tell(soma::fact{"loss", {{"value", 0.25}}});
  rec.flush();
  auto facts = soma::facts(st, "r", 4);
  BOOST_REQUIRE(!facts.empty());
  BOOST_TEST(facts.back().name == "loss");
  BOOST_TEST(written() == 5u);
}

BOOST_AUTO_TEST_CASE(a_reporter_writes_on_its_clock_and_makes_no_missed_reading_up_in_a_burst) {
  scratch dir;
  soma::store st{dir / "kept"};
  int written = 0;
  auto sampler = std::make_shared<soma::machine_sampler>();
  auto r = soma::spawn_reporter(sys, soma::reporting_to{.opened = st, .name = st.path()}, sampler,
                                soma::reporter_options{.every = 200ms,
                                                       .counts = [] { return soma::reported{}; },
                                                       .log = [](const std::string&) {},
                                                       .wrote = [&](bool w) { written += w; }});
  stopping stop{r, sched};
  sched.run();
  BOOST_TEST(written == 1); // the first, at once
  BOOST_TEST(soma::standing(st).count(sampler->id()) == 1u);
  BOOST_TEST(sched.advance_time(200ms) == 0u); // woken just past its interval
  BOOST_TEST(sched.advance_time(1us) == 1u);
  sched.run();
  BOOST_TEST(written == 2);
  // Five intervals pass at once (a try that blocked): one reading, not five.
  BOOST_TEST(sched.advance_time(1s) == 1u);
  sched.run();
  BOOST_TEST(written == 3);
  BOOST_TEST(soma::standing(st).at(sampler->id()).every_us == 200'000);
}

BOOST_AUTO_TEST_CASE(a_store_not_reached_is_tried_on_the_backoff_and_reported_once_reached) {
  scratch dir;
  said_list lines;
  int tries = 0, dropped = 0, written = 0;
  auto path = dir / "kept";
  // Reached at the fourth try.
  auto open = [&]() -> soma::store {
    if (++tries < 4)
      throw soma::store_error("cannot reach the served store soma://test:1: nobody there",
                              soma::store_trouble::unreachable);
    return soma::store{path};
  };
  auto r = soma::spawn_reporter(
    sys, soma::reporting_to{.open = open, .name = "soma://test:1"}, std::make_shared<soma::machine_sampler>(),
    soma::reporter_options{.every = 10s,
                           .counts = [] { return soma::reported{}; },
                           .log = [&](const std::string& line) { lines.push_back(line); },
                           .wrote = [&](bool w) { written += w; },
                           .dropped = [&] { ++dropped; },
                           .retry = {.first = 100ms, .cap = 100ms}});
  stopping stop{r, sched};
  sched.run();
  BOOST_TEST(tries == 1); // at once: not reached, its reading dropped
  BOOST_TEST(dropped == 1);
  // Each wait is 50 to 100 ms (jittered); 101 ms is past any of them, and
  // each try between two of its readings drops nothing more.
  for (int i = 2; i <= 4; ++i) {
    BOOST_TEST(sched.advance_time(101ms) == 1u);
    sched.run();
    BOOST_TEST(tries == i);
  }
  BOOST_TEST(dropped == 1);
  BOOST_TEST(written == 1);
  BOOST_REQUIRE_EQUAL(lines.size(), 4u);
  for (int i = 0; i < 3; ++i)
    BOOST_TEST((lines[i].starts_with("readings: cannot reach the served store soma://test:1: nobody there; "
                                     "trying again in 0.")
                && lines[i].ends_with(" (1 reading dropped so far)")),
               lines[i]);
  BOOST_TEST(lines[3] == "readings: reached " + path + "; 1 reading dropped while it was unreachable");
  // Reached: the next reading is on its interval, not the backoff's.
  BOOST_TEST(sched.advance_time(9s) == 0u);
}

BOOST_AUTO_TEST_CASE(a_claimants_readings_say_what_it_claims_and_finished_on_its_clock) {
  scratch dir;
  soma::store st{dir / "kept"};
  soma::add_trials(st, "lr", {{{"lr", 0.1}}, {{"lr", 0.2}}, {{"lr", 0.3}}});
  auto reading = [&](const std::string& id) { return soma::standing(st).at(id); };
  std::string id;
  {
    soma::claimant c{sys, st, "lr", {.reporting = 200ms}};
    id = c.id();
    sched.run();
    // In the fleet before its first claim: claiming lr, nothing finished.
    BOOST_TEST(reading(id).claims == "lr");
    BOOST_TEST(reading(id).trials == 0u);
    auto first = reading(id).when_us;
    BOOST_TEST(c.run([](soma::trial& t) { return soma::values{{"loss", t.param<double>("lr") * 2}}; },
                     {.at_most = 2})
               == 2u);
    // Nothing more is written until its clock says: then the two it finished.
    BOOST_TEST(reading(id).when_us == first);
    BOOST_TEST(sched.advance_time(200ms + 1us) == 1u);
    sched.run();
    BOOST_TEST(reading(id).trials == 2u);
    BOOST_TEST(soma::readings(st, id).size() == 2u); // its first, and its clock's
  } // its reporter stops, and a last reading says all it did
  BOOST_TEST(soma::readings(st, id).size() == 3u);
  BOOST_TEST(reading(id).trials == 2u);
  auto rows = soma::trials(st, "lr");
  BOOST_REQUIRE_EQUAL(rows.size(), 3u);
  BOOST_TEST((rows[0].state == soma::trial_state::done));
  BOOST_TEST((rows[1].state == soma::trial_state::done));
  BOOST_TEST((rows[2].state == soma::trial_state::waiting));
  BOOST_TEST(rows[0].claimant == id);
}

BOOST_AUTO_TEST_SUITE_END()
