// What travels with a remote node: its settings (through its codec), its
// cached outputs (kept here, recalled with no trip), and values across a
// slice of several nodes.

#include <boost/test/unit_test.hpp>

#include "../store/scratch.hpp"
#include "remote_fixture.hpp"
#include "soma/store/cache.hpp"

using namespace soma_test;

namespace {

// The facts of a forward without the worker's readings, which come with the
// first trip of a session and then at most once a second.
std::vector<soma::fact> without_readings(const std::vector<soma::fact>& facts) {
  std::vector<soma::fact> out;
  for (auto& f : facts)
    if (f.name != "machine")
      out.push_back(f);
  return out;
}

} // namespace

BOOST_FIXTURE_TEST_SUITE(remote_settings, system_fixture)

BOOST_AUTO_TEST_CASE(a_nodes_settings_travel_in_mode_project_and_network) {
  auto project = serving(sys);
  auto network = soma::worker::spawn(sys, {node_program, "--accept-code"}, soma::mode::network);
  for (auto* w : {&project, &network}) {
    auto broker = soma::broker::embedded({{"w1", *w}});
    auto g = soma::graph::somatize(sys, Scale{3}.named("by3").at("w1") >> Scale{5}.named("by5").at("w1")
                                          >> Scale{7}.named("here"));
    seen s;
    BOOST_TEST(g.forward(2, {.watching = s.watcher(), .broker = broker}) == 2 * 3 * 5 * 7);
    BOOST_TEST(s.named("left").size() == 1u); // both remote nodes went in one trip
    // A second graph of the same node type and name with another factor is
    // another node over there, not the first one's instance.
    auto h = soma::graph::somatize(sys, Scale{4}.named("by3").at("w1"));
    BOOST_TEST(h.forward(2, {.broker = broker}) == 8);
    BOOST_TEST(g.forward(1, {.broker = broker}) == 3 * 5 * 7);
  }
}

BOOST_AUTO_TEST_CASE(a_remote_node_with_fields_and_no_codec_is_refused_saying_how_to_give_one) {
  std::string error;
  try {
    (void)soma::graph::somatize(sys, Inc{}.named("a") >> Offset{}.named("shift").at("w1"));
  } catch (const std::invalid_argument& e) {
    error = e.what();
  }
  BOOST_TEST(error.find("node 'shift' runs at w1, but its type Offset has fields of its own and no "
                        "soma::codec, so they cannot travel") == 0u, error);
  BOOST_TEST(error.find("template <> struct soma::codec<Offset> : soma::fields_codec<Offset>")
               != std::string::npos, error);
  // Here, or at a worker without fields, it is fine.
  auto g = soma::graph::somatize(sys, Offset{}.named("shift") >> Inc{}.named("a").at("w1"));
  BOOST_TEST(g.declaration().size() == 2u);
}

BOOST_AUTO_TEST_CASE(a_cached_remote_node_is_kept_here_and_recalled_with_no_trip) {
  scratch dir;
  soma::store kept{dir / "kept"};
  auto w1 = serving(sys);
  auto broker = soma::broker::embedded({{"w1", w1}});
  auto g = soma::graph::somatize(sys, Inc{}.named("before") >> Scale{3}.named("s").frozen("1").cached().at("w1")
                                        >> Inc{}.named("after"));
  // Given no store, it runs every time, and says so once, as a node here does:
  // to the first forward someone hears (an unwatched one makes no facts).
  BOOST_TEST(g.forward(4, {.broker = broker}) == 16);
  for (int i = 0; i < 2; ++i) {
    seen bare;
    BOOST_TEST(g.forward(4, {.watching = bare.watcher(), .broker = broker}) == 16);
    auto ran = bare.named("ran");
    BOOST_REQUIRE(ran.size() == 3u);
    BOOST_TEST(ran[1]["node"] == "s");
    BOOST_TEST(ran[1]["cache"] == (i == 0 ? "no store" : ""), said(bare.facts));
    BOOST_TEST(bare.named("left").size() == 1u);
  }
  seen first;
  BOOST_TEST(g.forward(4, {.watching = first.watcher(), .store = kept, .broker = broker}) == 16);
  first.facts = without_readings(first.facts);
  BOOST_TEST(names(first.facts) == (std::vector<std::string>{"ran", "ran", "left", "kept", "ran",
                                              "finished"}), said(first.facts));
  BOOST_TEST(first.facts[1]["node"] == "s");
  BOOST_TEST(first.facts[1]["host"] == "w1");
  BOOST_TEST(first.facts[3]["node"] == "s");
  BOOST_TEST(!has(first.facts[3], "host")); // kept here, in the forward's store
  auto entries = soma::cache_entries(kept);
  BOOST_REQUIRE(entries.size() == 1u);
  BOOST_TEST(entries[0].node == "s");
  BOOST_TEST(entries[0].type == "Scale");
  BOOST_TEST(entries[0].version == "1");

  seen second;
  BOOST_TEST(g.forward(4, {.watching = second.watcher(), .store = kept, .broker = broker}) == 16);
  BOOST_TEST(names(second.facts) == (std::vector<std::string>{"ran", "recalled", "ran", "finished"}),
             said(second.facts));
  BOOST_TEST(second.facts[1]["node"] == "s");

  // A recall needs no worker at all: with it gone, the kept input still
  // answers, and a new input says the worker is gone.
  auto pid = w1.pid();
  ::kill(pid, SIGKILL);
  seen third;
  BOOST_TEST(g.forward(4, {.watching = third.watcher(), .store = kept, .broker = broker}) == 16);
  BOOST_TEST(third.named("recalled").size() == 1u);
  BOOST_CHECK_THROW((void)g.forward(5, {.store = kept, .broker = broker}), soma::forward_error);

  // Its fields are part of its key: Scale{2} under the same name and
  // version does not recall Scale{3}'s output.
  auto w2 = serving(sys);
  auto other = soma::broker::embedded({{"w1", w2}});
  auto h = soma::graph::somatize(sys, Inc{}.named("before") >> Scale{2}.named("s").frozen("1").cached().at("w1")
                                        >> Inc{}.named("after"));
  seen fourth;
  BOOST_TEST(h.forward(4, {.watching = fourth.watcher(), .store = kept, .broker = other}) == 11);
  BOOST_TEST(fourth.named("recalled").empty(), said(fourth.facts));
  BOOST_TEST(fourth.named("kept").size() == 1u);
  BOOST_TEST(soma::cache_entries(kept).size() == 2u);
}

BOOST_AUTO_TEST_CASE(a_value_crosses_a_three_node_slice_changing_type_at_each_node) {
  auto w1 = serving(sys);
  auto broker = soma::broker::embedded({{"w1", w1}});
  auto here = soma::graph::somatize(sys, Tokenize{}.named("tokenize") >> Embed{}.named("embed")
                                           >> Score{}.named("score"));
  auto there = soma::graph::somatize(sys, Tokenize{}.named("tokenize").at("w1")
                                            >> Embed{}.named("embed").at("w1")
                                            >> Score{}.named("score").at("w1"));
  for (std::string text : {"the quick brown fox", "a b a b c", "one"}) {
    seen s;
    auto far = there.forward(text, {.watching = s.watcher(), .broker = broker});
    BOOST_TEST(far == here.forward(text), text);
    BOOST_TEST(s.named("left").size() == 1u);
    BOOST_TEST(s.named("ran").size() == 3u);
  }
}

BOOST_AUTO_TEST_SUITE_END()
