// Replaying rules over history: a machine that stopped reporting for a known
// window is exactly one quiet_machine episode at the edges its threshold and
// `for` give; every step of a replay is what judge() says at that moment; two
// rulebooks differ by the episodes their settings move.

#include <boost/test/unit_test.hpp>

#include <set>

#include "making.hpp"
#include "scratch.hpp"
#include "soma/health/replay.hpp"

using namespace soma_test;
namespace health = soma::health;

namespace {

std::vector<health::episode> of_rule(const health::replayed& r, const std::string& rule) {
  std::vector<health::episode> out;
  for (auto& ep : r.episodes)
    if (ep.rule == rule)
      out.push_back(ep);
  return out;
}

// What a replay says holds at step t: rule and subject, and whether firing.
std::set<std::pair<std::string, bool>> held_at(const health::replayed& r, std::int64_t t) {
  std::set<std::pair<std::string, bool>> out;
  for (auto& ep : r.episodes)
    if (ep.pending_us <= t && (!ep.cleared_us || t < *ep.cleared_us))
      out.insert({ep.rule + " " + ep.subject, ep.firing_us && *ep.firing_us <= t});
  return out;
}

std::set<std::pair<std::string, bool>> judged_at(const soma::store& s, const health::rulebook& book,
                                                 std::int64_t t) {
  std::set<std::pair<std::string, bool>> out;
  for (auto& op : health::judge(s, book, {.at_us = t}).opinions)
    out.insert({op.rule + " " + op.subject, op.state == health::status::firing});
  return out;
}

} // namespace

BOOST_AUTO_TEST_SUITE(replay)

BOOST_AUTO_TEST_CASE(a_machine_stopped_for_a_known_window_is_one_episode_at_the_computed_edges) {
  scratch tmp;
  soma::store s{tmp / "s"};
  write_gap(s);
  auto book = health::rulebook::shipped();
  auto r = health::replay(s, book, {.from_us = t0_us, .to_us = t0_us + 60 * s_us});
  BOOST_TEST(r.steps == 61u);
  BOOST_TEST(r.last_us == t0_us + 60 * s_us);
  BOOST_TEST(r.episodes.size() == 1u); // nothing else held: no run, no silence
  auto eps = of_rule(r, "quiet_machine");
  BOOST_REQUIRE_EQUAL(eps.size(), 1u);
  auto& ep = eps[0];
  BOOST_TEST(ep.subject == "machine b-1");
  // Threshold 5 x 0.5 s: quiet from b-1's last reading (t0 + 20 s) past
  // 2.5 s behind a-1's newest; the first whole step with a-1's newest past
  // that is t0 + 23 s (a-1 at t0 + 23 s: 3 s quiet).
  auto last_us = t0_us + 20 * s_us;
  auto threshold_us = 5 * 500'000;
  auto for_us = 5 * s_us;
  BOOST_TEST(ep.threshold == 2.5);
  BOOST_TEST(ep.for_us == for_us);
  BOOST_TEST(ep.since_us == last_us + threshold_us);
  BOOST_TEST(ep.pending_us == t0_us + 23 * s_us);
  BOOST_TEST(ep.pending_value == 3.0);
  // Firing once it has held `for` by a-1's clock: since + 5 s = t0 + 27.5 s,
  // the step after, t0 + 28 s, 8 s quiet.
  BOOST_REQUIRE(ep.firing_us.has_value());
  BOOST_TEST(*ep.firing_us == t0_us + 28 * s_us);
  BOOST_TEST(ep.firing_value == 8.0);
  // Cleared at the first step with b-1 back (t0 + 40 s), its last value at
  // t0 + 39 s: 19 s quiet.
  BOOST_REQUIRE(ep.cleared_us.has_value());
  BOOST_TEST(*ep.cleared_us == t0_us + 40 * s_us);
  BOOST_TEST(ep.last_value == 19.0);
  BOOST_TEST(ep.steps == 17u);
}

BOOST_AUTO_TEST_CASE(every_step_of_a_replay_is_what_judge_says_at_that_moment) {
  scratch tmp;
  soma::store s{tmp / "s"};
  write_gap(s);
  // Runs too: one that breaks a forward and then stalls, one that runs on
  // and ends with a summarised value not finite.
  std::vector<written> r1, r2;
  for (std::int64_t k = 0; k < 30; ++k)
    r1.push_back({record_at(t0_s + k, k == 10 ? soma::outcome::broke : soma::outcome::ok),
                  {ran("embed", 100, "w1"), left("w1", 5000)}});
  for (std::int64_t k = 0; k < 55; ++k)
    r2.push_back({record_at(t0_s + 5 + k, soma::outcome::ok,
                            {{"loss.value", k > 45 ? std::string{"nan"} : std::to_string(k)}}),
                  {ran("embed", 100)}});
  write_forwards(s, "r1", r1);
  write_forwards(s, "r2", r2);
  // Three earlier runs of the same graph, then one whose embed slows down
  // (slow_node) and whose trips to w2 wait 10 to 200 times their work
  // (not_worth_sending) after every machine stopped reporting, so that only
  // its forwards move the evidence; r1's trips to w1 wait 49 times theirs; a
  // machine busy for 45 s (busy_machine).
  for (std::int64_t g = 0; g < 3; ++g) {
    std::vector<written> fs;
    for (std::int64_t k = 0; k < 5; ++k)
      fs.push_back({record_at(t0_s - 300 + 10 * g + k), {ran("embed", 100)}});
    write_forwards(s, "g" + std::to_string(g), fs);
  }
  std::vector<written> slow;
  for (std::int64_t k = 0; k < 30; ++k)
    slow.push_back({record_at(t0_s + 62 + k),
                    {ran("embed", k < 10 ? 100 : 2000, "w2"), left("w2", 20'000 + (k < 10 ? 100 : 2000))}});
  write_forwards(s, "slow", slow);
  for (std::int64_t k = 0; k <= 60; ++k)
    reading_at(s, "c-1", t0_us + k * s_us, s_us, k < 45 ? 0.95 : 0.5);
  // Ten forwards a second from t0 - 10 s: 90 before the first step, 160
  // after, so a step's tail reaches back past the last 200 as of the end,
  // and its fact blobs past the last 100 (the first broke, the first 150
  // trips to w3 waiting 50 times their work).
  std::vector<written> many;
  for (std::int64_t k = 0; k < 250; ++k) {
    auto r = record_at(t0_s - 10 + k / 10, k == 5 ? soma::outcome::broke : soma::outcome::ok);
    many.push_back({r, {ran("embed", 100, "w3"), left("w3", k < 150 ? 5000 : 150)}});
  }
  write_forwards(s, "many", many);
  auto book = health::rulebook::shipped();
  book.set("slow_node", "for", 4);
  book.set("not_worth_sending", "for", 2);
  book.set("broke_forwards", "for", 7);
  book.set("stalled_run", "for", 3);
  book.set("silent_store", "over", 2);
  book.set("silent_store", "for", 1.5);
  auto from = t0_us - 2 * s_us, to = t0_us + 100 * s_us;
  for (std::int64_t every : {s_us, std::int64_t{700'000}}) {
    auto r = health::replay(s, book, {.from_us = from, .to_us = to, .every_us = every});
    std::set<std::string> rules;
    for (auto& ep : r.episodes)
      rules.insert(ep.rule);
    for (auto rule : {"quiet_machine", "busy_machine", "not_worth_sending", "slow_node",
                      "broke_forwards", "stalled_run", "non_finite", "silent_store"})
      BOOST_TEST(rules.count(rule) == 1u, rule << " held in the replay");
    for (auto t = from; t <= to; t += every)
      BOOST_TEST((held_at(r, t) == judged_at(s, book, t)), "at t0 + " << (t - t0_us) / 1e6 << " s");
  }
}

BOOST_AUTO_TEST_CASE(a_condition_that_breaks_and_begins_again_between_two_steps_is_two_episodes) {
  // A machine full at every reading but one (at 61 s): stepped every 10 s,
  // the replay never sees the break, but judge at 70 s says pending again
  // (its condition began anew at 62 s), and so must the replay.
  scratch tmp;
  soma::store s{tmp / "s"};
  for (std::int64_t k = 0; k <= 120; ++k) {
    soma::reading r;
    r.id = "m-1";
    r.when_us = t0_us + k * s_us;
    r.every_us = s_us;
    r.busy = 0.1;
    r.memory = k == 61 ? 0.5 : 0.95;
    r.cores = 4;
    soma::put_reading(s, r);
  }
  auto book = health::rulebook::shipped();
  auto from = t0_us, to = t0_us + 120 * s_us;
  for (std::int64_t every : {s_us, 10 * s_us}) {
    auto r = health::replay(s, book, {.from_us = from, .to_us = to, .every_us = every});
    BOOST_TEST(of_rule(r, "memory_machine").size() == 2u, "every " << every / s_us << " s");
    for (auto t = from; t <= to; t += every)
      BOOST_TEST((held_at(r, t) == judged_at(s, book, t)), "at t0 + " << (t - t0_us) / 1e6 << " s, every "
                                                               << every / s_us << " s");
  }
}

BOOST_AUTO_TEST_CASE(a_replay_of_one_run_has_only_its_episodes_and_an_unknown_run_is_an_error) {
  scratch tmp;
  soma::store s{tmp / "s"};
  write_gap(s);
  std::vector<written> r1{{record_at(t0_s, soma::outcome::broke), {}}};
  write_forwards(s, "r1", r1);
  write_forwards(s, "r2", r1);
  auto book = health::rulebook::shipped();
  auto r = health::replay(s, book, {.from_us = t0_us, .to_us = t0_us + 10 * s_us, .run = "r2"});
  BOOST_REQUIRE_EQUAL(r.episodes.size(), 1u);
  BOOST_TEST(r.episodes[0].subject == "run r2");
  BOOST_CHECK_THROW((void) health::replay(s, book, {.from_us = t0_us, .to_us = t0_us, .run = "r3"}),
                    soma::store_error);
}

BOOST_AUTO_TEST_CASE(a_replay_says_what_was_wrong_with_its_window) {
  scratch tmp;
  soma::store s{tmp / "s"};
  auto book = health::rulebook::shipped();
  auto says = [&](health::replay_options o, const std::string& part) {
    try {
      (void) health::replay(s, book, o);
      BOOST_ERROR("no replay_error for " << part);
    } catch (const health::replay_error& e) {
      BOOST_TEST(std::string{e.what()}.find(part) != std::string::npos, e.what());
    }
  };
  says({.from_us = 2 * s_us, .to_us = s_us}, "give the earlier moment first");
  says({.from_us = 0, .to_us = s_us, .every_us = 0}, "over 0 s");
  says({.from_us = 0, .to_us = 2'000'000 * s_us}, "more than the 1000000");
  auto r = health::replay(s, book, {.from_us = t0_us, .to_us = t0_us});
  BOOST_TEST(r.steps == 1u);
  BOOST_TEST(r.episodes.empty()); // an empty store holds nothing
}

BOOST_AUTO_TEST_CASE(two_rulebooks_differ_by_the_episodes_their_settings_move) {
  scratch tmp;
  soma::store s{tmp / "s"};
  write_gap(s);
  health::replay_options o{.from_us = t0_us, .to_us = t0_us + 60 * s_us};
  auto a_book = health::rulebook::shipped();
  auto a = health::replay(s, a_book, o);
  BOOST_TEST(health::compare(a, a).empty());
  // over 20 x 0.5 s = 10 s: pending from t0 + 31 s (11 s quiet), since
  // t0 + 30 s, firing at t0 + 35 s: 7 s after A's.
  auto b_book = health::rulebook::shipped();
  b_book.set("quiet_machine", "over", 20);
  auto d = health::compare(a, health::replay(s, b_book, o));
  BOOST_REQUIRE_EQUAL(d.size(), 1u);
  BOOST_TEST((d[0].is == health::difference_is::firing_moved));
  BOOST_TEST(d[0].moved_us == 7 * s_us);
  BOOST_TEST(d[0].b->pending_us == t0_us + 31 * s_us);
  // `for` 30 s: it holds from t0 + 23 s to t0 + 40 s and never fires.
  auto c_book = health::rulebook::shipped();
  c_book.set("quiet_machine", "for", 30);
  d = health::compare(a, health::replay(s, c_book, o));
  BOOST_REQUIRE_EQUAL(d.size(), 1u);
  BOOST_TEST((d[0].is == health::difference_is::fired_only_in_a));
  BOOST_TEST(!d[0].b->firing_us);
  // over 50 x 0.5 s = 25 s: b-1 is never that quiet.
  auto e_book = health::rulebook::shipped();
  e_book.set("quiet_machine", "over", 50);
  auto e = health::replay(s, e_book, o);
  d = health::compare(a, e);
  BOOST_REQUIRE_EQUAL(d.size(), 1u);
  BOOST_TEST((d[0].is == health::difference_is::only_in_a));
  d = health::compare(e, a);
  BOOST_REQUIRE_EQUAL(d.size(), 1u);
  BOOST_TEST((d[0].is == health::difference_is::only_in_b));
  BOOST_TEST(d[0].b->subject == "machine b-1");
}

BOOST_AUTO_TEST_SUITE_END()
