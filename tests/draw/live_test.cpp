#include <boost/test/unit_test.hpp>

#include <cmath>

#include <caf/actor_system.hpp>

#include "scratch.hpp"
#include "seed_nodes.hpp"
#include "soma/draw/progress.hpp"
#include "soma/draw/tally.hpp"
#include "soma/live.hpp"
#include "soma/recorder.hpp"
#include "soma/soma.hpp"

using namespace soma_test;
namespace draw = soma::draw;

BOOST_AUTO_TEST_SUITE(live)

BOOST_AUTO_TEST_CASE(lives_figure_after_n_facts_is_progress_from_the_store) {
  scratch tmp;
  soma::system_config cfg;
  caf::actor_system system{cfg};
  auto g = soma::graph::somatize(system, Tokenize{}.named("tokenize") >> Embed{}.named("embed")
                                           >> Score{}.named("score"));
  soma::store store{tmp / "s"};
  soma::live live{system, {.run = "tuesday"}};
  {
    soma::recorder recorder{system, store, {.run = "tuesday", .summarising = {"loss"}}};
    for (int step = 0; step < 40; ++step) {
      g.forward("the quick brown fox jumps", {.watching = {recorder, live}});
      soma::fact loss{"loss", {{"value", 1.5 * std::pow(0.9, step) + 0.2}}};
      recorder.tell(loss);
      live.tell(loss);
    }
  }
  auto seen = live.snapshot();
  BOOST_TEST(seen.forwards() == 40u);
  BOOST_TEST(seen.finished() == 40u);
  BOOST_TEST(seen.values().size() == 40u);
  BOOST_REQUIRE_EQUAL(seen.nodes().size(), 3u);
  BOOST_TEST(seen.nodes()[0].ran == 40u);
  auto from_store = draw::progress(store, "tuesday");
  auto from_live = live.figure();
  BOOST_TEST(from_live.svg() == from_store.svg());
  BOOST_TEST((from_live == from_store));
}

BOOST_AUTO_TEST_CASE(a_live_view_with_nothing_told_says_so) {
  soma::system_config cfg;
  caf::actor_system system{cfg};
  soma::live live{system};
  BOOST_CHECK_THROW((void)live.figure(), std::invalid_argument);
  live.tell(soma::fact{"loss", {{"value", 2}}});
  BOOST_TEST(live.figure().title() == "loss over run live");
}

BOOST_AUTO_TEST_CASE(memory_is_bounded_over_a_million_forwards) {
  draw::tally t{"loss", 1024};
  soma::fact ran{"ran", {{"node", "a"}, {"took_us", 1}}};
  for (std::uint64_t i = 0; i < 1'000'000; ++i) {
    t.add(1000 + i, ran);
    t.add(soma::fact{"loss", {{"value", static_cast<double>(i) * 0.5}}});
  }
  BOOST_TEST(t.forwards() == 1'000'000u);
  BOOST_TEST(t.values().size() <= 1024u);
  BOOST_TEST(t.values().size() >= 512u);
  BOOST_TEST(t.every() == 1024u); // 1,000,000 / 1024 rounded up to a power of two
  for (std::size_t i = 0; i < t.values().size(); ++i) {
    auto [n, v] = t.values()[i];
    BOOST_TEST(n % t.every() == 0u);
    BOOST_TEST(v == static_cast<double>(n) * 0.5); // a value told, never an average
    if (i)
      BOOST_TEST(n > t.values()[i - 1].first);
  }
  BOOST_TEST(t.nodes().size() == 1u);
  BOOST_TEST(t.nodes()[0].took_us == 1'000'000);
  BOOST_TEST(*t.last() == 999'999 * 0.5);
  auto f = draw::progress(t.values(), "long", "loss", {.every = t.every()});
  BOOST_TEST(f.svg().find("every 1024th kept") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(forwards_are_numbered_as_a_recorder_numbers_them) {
  draw::tally t;
  t.add(soma::fact{"loss", {{"value", 9}}}); // before any forward: joins forward 0
  t.add(77, soma::fact{"ran", {{"node", "a"}, {"took_us", 1}}});
  t.add(78, soma::fact{"ran", {{"node", "a"}, {"took_us", 1}}});
  t.add(77, soma::fact{"finished", {{"took_us", 3}}}); // overlapping: still forward 0
  t.add(soma::fact{"loss", {{"value", 2}}});           // joins forward 1, which began last
  t.add(soma::fact{"loss", {{"value", 1}}});           // told twice: the last counts
  t.add(78, soma::fact{"loss", {{"value", "not a number"}}});
  BOOST_TEST(t.forwards() == 2u);
  BOOST_TEST(t.finished() == 1u);
  BOOST_TEST(t.unreadable() == 1u);
  BOOST_REQUIRE_EQUAL(t.values().size(), 2u);
  BOOST_TEST((t.values()[0] == std::make_pair(std::uint64_t{0}, 9.0)));
  BOOST_TEST((t.values()[1] == std::make_pair(std::uint64_t{1}, 1.0)));
}

BOOST_AUTO_TEST_SUITE_END()
