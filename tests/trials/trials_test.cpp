// Studies and trials in one process: adding, claiming in order, ending,
// refusing a handed-back attempt, reclaiming by the rule, the sweep helpers,
// typed parameters, and the errors of each.

#include <boost/test/unit_test.hpp>

#include <chrono>
#include <thread>

#include "../draw/writing.hpp"
#include "../store/scratch.hpp"
#include "seed_nodes.hpp"
#include "soma/soma.hpp"
#include "soma/store/backend.hpp"
#include "soma/store/detail/environment.hpp"
#include "soma/wire/trial.hpp"

using namespace std::chrono_literals;
using soma_test::scratch;

namespace {

// An error's message, or "" when `f` did not throw E.
template <class E, class F>
std::string thrown(F&& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  }
  return "";
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// A reading of machine `id` at `when_us`, as its reporter would write it.
void reading_of(soma::store& s, const std::string& id, std::int64_t when_us) {
  soma::put_reading(s, soma::reading{.id = id, .when_us = when_us});
}

} // namespace

BOOST_AUTO_TEST_SUITE(trials)

BOOST_AUTO_TEST_CASE(trials_are_claimed_lowest_first_once_each_and_end_with_their_result) {
  scratch tmp;
  soma::store s{tmp / "s"};
  auto added = soma::add_trials(s, "lr", {{{"lr", 0.1}}, {{"lr", 0.01}}, {{"lr", 0.001}}}, "sweep");
  BOOST_TEST((added == std::vector<std::uint64_t>{0, 1, 2}));
  auto a = soma::claim_trial(s, "lr", "host-1");
  auto b = soma::claim_trial(s, "lr", "host-2");
  BOOST_REQUIRE(a);
  BOOST_REQUIRE(b);
  BOOST_TEST(a->number == 0u);
  BOOST_TEST(b->number == 1u);
  BOOST_TEST(a->attempt == 1u);
  BOOST_TEST(a->claimant == "host-1");
  BOOST_TEST(a->run == "lr.0");
  BOOST_TEST(a->params.get<double>("lr") == 0.1);
  BOOST_TEST(a->claimed_us > 0);
  soma::end_trial(s, "lr", *a, soma::trial_state::done, {{"loss", 0.25}});
  soma::end_trial(s, "lr", *b, soma::trial_state::broke, {}, "diverged");
  // Ending twice is refused: the attempt is no longer the trial's claim.
  auto again = thrown<soma::trial_refused>(
    [&] { soma::end_trial(s, "lr", *a, soma::trial_state::done, {{"loss", 9.0}}); });
  BOOST_TEST(has(again, "trial 0 of study 'lr' is not held by host-1 in attempt 1 (it is done"), again);

  auto rows = soma::trials(s, "lr");
  BOOST_REQUIRE_EQUAL(rows.size(), 3u);
  BOOST_TEST(rows[0].state == soma::trial_state::done);
  BOOST_TEST(rows[0].result.get<double>("loss") == 0.25);
  BOOST_TEST(rows[0].ended_us >= rows[0].claimed_us);
  BOOST_TEST(rows[1].state == soma::trial_state::broke);
  BOOST_TEST(rows[1].error == "diverged");
  BOOST_TEST(rows[2].state == soma::trial_state::waiting);
  BOOST_TEST(rows[2].attempt == 0u);

  auto st = soma::studies(s);
  BOOST_REQUIRE_EQUAL(st.size(), 1u);
  BOOST_TEST(st[0].study.name == "lr");
  BOOST_TEST(st[0].study.function == "sweep");
  BOOST_TEST(st[0].study.trials == 3u);
  BOOST_TEST(st[0].done == 1u);
  BOOST_TEST(st[0].broke == 1u);
  BOOST_TEST(st[0].waiting == 1u);
  BOOST_TEST(st[0].claimed == 0u);

  auto c = soma::claim_trial(s, "lr", "host-1");
  BOOST_REQUIRE(c);
  BOOST_TEST(c->number == 2u);
  BOOST_TEST(!soma::claim_trial(s, "lr", "host-1")); // none left
}

BOOST_AUTO_TEST_CASE(a_refused_end_is_a_refused_error_here_and_over_the_wire) {
  scratch tmp;
  soma::store s{tmp / "s"};
  (void)soma::add_trials(s, "r", {{{"lr", 0.1}}}, "sweep");
  auto t = soma::claim_trial(s, "r", "host-1");
  BOOST_REQUIRE(t);
  auto kept = s.backend().end_trial("r", t->number, t->attempt, t->claimant,
                                    soma::trial_state::done, {}, {});
  BOOST_TEST(static_cast<bool>(kept));
  auto refused = s.backend().end_trial("r", t->number, t->attempt, t->claimant,
                                       soma::trial_state::done, {}, {});
  BOOST_REQUIRE(!refused);
  auto code = static_cast<std::uint8_t>(soma::error_code::refused);
  BOOST_TEST(refused.error().code() == code);
  auto why = soma::describe(refused.error());
  BOOST_TEST(has(why, "trial 0 of study 'r' is not held by host-1 in attempt 1"), why);
  // A served store's client decodes the same error from its server's answer.
  auto carried = soma::wire::decode_trial_ended(soma::wire::encode_trial_ended(refused));
  BOOST_REQUIRE(!carried);
  BOOST_TEST(carried.error().code() == code);
  BOOST_TEST(soma::describe(carried.error()) == why);
  BOOST_TEST(static_cast<bool>(soma::wire::decode_trial_ended(soma::wire::encode_trial_ended({}))));
  auto named = soma::check_study_name("a/b");
  BOOST_REQUIRE(!named);
  BOOST_TEST(named.error().code() == static_cast<std::uint8_t>(soma::error_code::invalid));
}

BOOST_AUTO_TEST_CASE(end_and_claim_ends_a_trial_and_claims_the_next_in_one_commit) {
  scratch tmp;
  soma::store s{tmp / "s"};
  soma::add_trials(s, "ec", soma::grid({{"i", {std::int64_t{0}, std::int64_t{1}, std::int64_t{2}}}}));
  auto first = soma::claim_trial(s, "ec", "m-1");
  BOOST_REQUIRE(first);
  auto before = s.env().last_txn();
  auto second = soma::end_and_claim(s, "ec", *first, soma::trial_state::done, {{"y", 1.0}});
  BOOST_TEST(s.env().last_txn() == before + 1); // one commit for both
  BOOST_REQUIRE(second);
  BOOST_TEST(second->number == 1u);
  BOOST_TEST(second->claimant == "m-1");
  auto rows = soma::trials(s, "ec");
  BOOST_TEST(rows[0].state == soma::trial_state::done);
  BOOST_TEST(rows[0].result.get<double>("y") == 1.0);
  BOOST_TEST(rows[1].state == soma::trial_state::claimed);
  // Handed back meanwhile: the end is refused, the next claim made all the same.
  soma::reclaim(s, "ec", 0); // m-1 has no reading: quieter than any S
  try {
    (void)soma::end_and_claim(s, "ec", *second, soma::trial_state::done, {{"y", 2.0}});
    BOOST_FAIL("a handed-back attempt's end was kept");
  } catch (const soma::trial_refused& e) {
    BOOST_REQUIRE(e.next);
    BOOST_TEST(e.next->number == 1u); // the handed-back trial, lowest, first
    BOOST_TEST(e.next->attempt == 2u);
  }
  auto last = soma::claim_trial(s, "ec", "m-1");
  BOOST_REQUIRE(last);
  BOOST_TEST(last->number == 2u);
  // The handed-back attempt's run (one forward, written as a recorder
  // would) says so once, with why: soma runs' trial column, the run's page.
  soma::record r;
  r.state = soma::outcome::ok;
  r.when_us = 1'000'000'000;
  soma_test::write_forwards(s, second->run, {{r, {}}});
  auto row = soma::run_summary(s, second->run);
  BOOST_REQUIRE(row.trial.has_value());
  BOOST_TEST(row.trial->state == "handed back");
  BOOST_TEST(row.trial->error == "its claimant has no reading in the store (rule: quiet_s over 0.0)",
             row.trial->error);
  BOOST_TEST(!soma::end_and_claim(s, "ec", *last, soma::trial_state::broke, {}, "x"));
  BOOST_TEST(soma::trials(s, "ec")[2].error == "x");
}

BOOST_AUTO_TEST_CASE(a_study_grows_while_it_is_claimed_and_a_waiting_claim_takes_what_is_added) {
  scratch tmp;
  soma::store s{tmp / "s"};
  soma::add_trials(s, "grow", {{{"k", std::int64_t{0}}}});
  BOOST_REQUIRE(soma::claim_trial(s, "grow", "m-1"));
  BOOST_TEST(!soma::claim_trial(s, "grow", "m-1"));
  std::optional<soma::trial_row> waited;
  std::thread waiter{[&] { waited = soma::claim_trial(s, "grow", "m-2", 10s); }};
  auto added = soma::add_trials(s, "grow", {{{"k", std::int64_t{1}}}});
  waiter.join();
  BOOST_TEST((added == std::vector<std::uint64_t>{1}));
  BOOST_REQUIRE(waited);
  BOOST_TEST(waited->number == 1u);
  BOOST_TEST(waited->claimant == "m-2");
  BOOST_TEST(soma::study(s, "grow").trials == 2u);
  // Nothing added: the wait ends at its bound with nothing.
  auto began = std::chrono::steady_clock::now();
  BOOST_TEST(!soma::claim_trial(s, "grow", "m-2", 100ms));
  auto took = std::chrono::steady_clock::now() - began;
  BOOST_TEST(took >= 100ms);
  BOOST_TEST(took < 2s);
}

BOOST_AUTO_TEST_CASE(reclaim_hands_back_exactly_the_claims_of_quiet_claimants_and_keeps_the_attempt) {
  scratch tmp;
  soma::store s{tmp / "s"};
  soma::add_trials(s, "q", soma::grid({{"i", {std::int64_t{0}, std::int64_t{1}, std::int64_t{2}}}}));
  std::int64_t t0 = 1'700'000'000'000'000;
  reading_of(s, "quiet-1", t0);
  reading_of(s, "busy-2", t0);
  auto quiet = soma::claim_trial(s, "q", "quiet-1");
  auto busy = soma::claim_trial(s, "q", "busy-2");
  auto ghost = soma::claim_trial(s, "q", "ghost-3"); // never wrote a reading
  BOOST_REQUIRE(quiet && busy && ghost);
  // busy-2 goes on writing: quiet-1 falls 12 s behind the newest writer.
  reading_of(s, "busy-2", t0 + 12'000'000);
  auto handed = soma::reclaim(s, "q", 30);
  BOOST_TEST((handed == std::vector<std::uint64_t>{2})); // ghost-3 only: 12 s is under 30 s
  handed = soma::reclaim(s, "q", 10);
  BOOST_TEST((handed == std::vector<std::uint64_t>{0}));
  auto rows = soma::trials(s, "q");
  BOOST_TEST(rows[0].state == soma::trial_state::waiting);
  BOOST_REQUIRE_EQUAL(rows[0].abandoned.size(), 1u);
  BOOST_TEST(rows[0].abandoned[0].claimant == "quiet-1");
  BOOST_TEST(rows[0].abandoned[0].run == "q.0");
  BOOST_TEST(has(rows[0].abandoned[0].why, "12.0 s behind the newest writer's (rule: quiet_s over 10.0)"),
             rows[0].abandoned[0].why);
  BOOST_TEST(has(rows[2].abandoned[0].why, "has no reading in the store"), rows[2].abandoned[0].why);
  BOOST_TEST(rows[1].state == soma::trial_state::claimed); // busy-2 is not quiet
  // The quiet claimant wakes and ends its attempt: refused, not kept.
  auto late = thrown<soma::trial_refused>(
    [&] { soma::end_trial(s, "q", *quiet, soma::trial_state::done, {{"loss", 1.0}}); });
  BOOST_TEST(has(late, "trial 0 of study 'q' was handed back from this attempt (1, quiet-1)"), late);
  // The next claim takes the handed-back trial, as attempt 2 in a run of its own.
  auto again = soma::claim_trial(s, "q", "busy-2");
  BOOST_REQUIRE(again);
  BOOST_TEST(again->number == 0u);
  BOOST_TEST(again->attempt == 2u);
  BOOST_TEST(again->run == "q.0.2");
  soma::end_trial(s, "q", *again, soma::trial_state::done, {{"loss", 0.5}});
  rows = soma::trials(s, "q");
  BOOST_TEST(rows[0].state == soma::trial_state::done);
  BOOST_TEST(rows[0].abandoned.size() == 1u);
  BOOST_TEST(soma::studies(s)[0].abandoned == 2u);
}

BOOST_AUTO_TEST_CASE(a_claimant_lets_go_of_its_own_trial_and_the_attempt_is_kept) {
  scratch tmp;
  soma::store s{tmp / "s"};
  soma::add_trials(s, "g", {{{"x", true}}});
  auto t = soma::claim_trial(s, "g", "me-1");
  BOOST_REQUIRE(t);
  soma::end_trial(s, "g", *t, soma::trial_state::waiting, {}, "stopped by SIGTERM");
  auto rows = soma::trials(s, "g");
  BOOST_TEST(rows[0].state == soma::trial_state::waiting);
  BOOST_REQUIRE_EQUAL(rows[0].abandoned.size(), 1u);
  BOOST_TEST(rows[0].abandoned[0].why == "stopped by SIGTERM");
  auto next = soma::claim_trial(s, "g", "me-1");
  BOOST_REQUIRE(next);
  BOOST_TEST(next->attempt == 2u);
}

BOOST_AUTO_TEST_CASE(a_claimant_runs_trials_typed_records_their_runs_and_is_a_machine_of_the_fleet) {
  scratch tmp;
  soma::store s{tmp / "s"};
  soma::add_trials(s, "typed", soma::grid({{"lr", {0.5, 0.25}}, {"depth", {std::int64_t{2}}}}));
  soma::add_trials(s, "typed", {{{"lr", std::string{"fast"}}, {"depth", std::int64_t{2}}}});
  soma::system_config cfg;
  caf::actor_system sys{cfg};
  std::vector<std::string> logged;
  std::uint64_t ran = 0;
  std::string id;
  {
    soma::claimant c{sys, s, "typed", {.log = [&](const std::string& l) { logged.push_back(l); }}};
    id = c.id();
    // Its first reading is there before it claims anything.
    auto before = soma::standing(s);
    BOOST_REQUIRE(before.count(id));
    BOOST_TEST(before[id].claims == "typed");
    BOOST_TEST(before[id].trials == 0u);
    auto g = soma::graph::somatize(sys, Tokenize{}.named("tokenize") >> Embed{}.named("embed"));
    ran = c.run([&](soma::trial& t) -> soma::values {
      auto lr = t.param<double>("lr"); // the third trial's lr is a text: it breaks here
      int depth = t.param<int>("depth");
      soma::recorder rec{t.system(), t.store(), {.run = t.run(), .summarising = {"loss"}}};
      for (int step = 0; step < 3; ++step) {
        g.forward("a b c", {.watching = rec});
        rec.tell(soma::fact{"loss", {{"value", lr * depth * (3 - step)}}});
      }
      rec.flush();
      return {{"loss", lr * depth}};
    });
    BOOST_TEST(c.finished() == 3u);
  }
  BOOST_TEST(ran == 3u);
  auto rows = soma::trials(s, "typed");
  BOOST_REQUIRE_EQUAL(rows.size(), 3u);
  BOOST_TEST(rows[0].state == soma::trial_state::done);
  BOOST_TEST(rows[0].result.get<double>("loss") == 1.0);
  BOOST_TEST(rows[0].claimant == id);
  BOOST_TEST(rows[1].result.get<double>("loss") == 0.5);
  BOOST_TEST(rows[2].state == soma::trial_state::broke);
  BOOST_TEST(rows[2].error == "the value 'lr' is a text (fast), not a number", rows[2].error);
  // A trial's run is a run like any: its curve reads back.
  auto curve = soma::curve(s, rows[0].run);
  BOOST_REQUIRE_EQUAL(curve.size(), 3u);
  BOOST_TEST(curve[2].second == 1.0);
  BOOST_TEST(soma::runs(s).size() == 2u); // the broken trial recorded nothing
  // Its recorder said nothing of what the run was: the run has its trial's
  // params, typed, and the study as a tag.
  for (std::size_t i = 0; i < 2; ++i) {
    auto row = soma::run_summary(s, rows[i].run);
    BOOST_TEST(row.params == rows[i].params);
    BOOST_TEST((row.tags == std::vector<std::string>{"study:typed"}));
    BOOST_TEST(row.status == soma::run_status::finished);
    BOOST_REQUIRE(row.trial.has_value());
    BOOST_TEST(row.trial->study == "typed");
    BOOST_TEST(row.trial->number == i);
    BOOST_TEST(row.trial->state == "done");
  }
  BOOST_TEST(logged.empty());
}

BOOST_AUTO_TEST_CASE(a_run_whose_trial_broke_says_so_though_its_forwards_were_ok) {
  scratch tmp;
  soma::store s{tmp / "s"};
  soma::add_trials(s, "div", {{{"lr", 1.5}}});
  soma::system_config cfg;
  caf::actor_system sys{cfg};
  {
    soma::claimant c{sys, s, "div", {.log = [](const std::string&) {}}};
    auto g = soma::graph::somatize(sys, Tokenize{}.named("tokenize"));
    c.run([&](soma::trial& t) -> soma::values {
      soma::recorder rec{t.system(), t.store(), {.run = t.run()}};
      for (int step = 0; step < 2; ++step)
        g.forward("a b", {.watching = rec});
      rec.flush();
      throw std::runtime_error("diverged: loss 1313.78");
    });
  }
  auto row = soma::run_summary(s, "div.0");
  BOOST_TEST(row.forwards == 2u);
  BOOST_TEST(row.broke == 0u); // every forward was ok
  BOOST_TEST(row.status == soma::run_status::finished);
  BOOST_REQUIRE(row.trial.has_value());
  BOOST_TEST(row.trial->state == "broke");
  BOOST_TEST(row.trial->error == "diverged: loss 1313.78");
  BOOST_TEST((row.params == soma::values{{"lr", 1.5}}));
  // The listing says the same.
  auto listed = soma::runs(s);
  BOOST_REQUIRE_EQUAL(listed.size(), 1u);
  BOOST_TEST(listed[0].trial->state == "broke");
}

BOOST_AUTO_TEST_CASE(the_sweep_helpers_make_every_combination_and_the_same_samples_from_a_seed) {
  auto g = soma::grid({{"lr", {0.1, 0.01}}, {"depth", {std::int64_t{2}, std::int64_t{4}}}});
  BOOST_REQUIRE_EQUAL(g.size(), 4u);
  BOOST_TEST(g[0].text() == "lr=0.1,depth=2");
  BOOST_TEST(g[1].text() == "lr=0.1,depth=4");
  BOOST_TEST(g[3].text() == "lr=0.01,depth=4");
  auto axes = std::vector<std::pair<std::string, soma::sampled>>{
    {"lr", soma::sampled::log_uniform(1e-4, 1e-1)},
    {"depth", soma::sampled::integers(2, 8)},
    {"act", soma::sampled::choice({std::string{"relu"}, std::string{"tanh"}})}};
  auto a = soma::samples(200, 7, axes), b = soma::samples(200, 7, axes), c = soma::samples(200, 8, axes);
  BOOST_TEST((a == b));
  BOOST_TEST(!(a == c));
  bool low = false, high = false;
  for (auto& v : a) {
    auto lr = v.get<double>("lr");
    auto depth = v.get<std::int64_t>("depth");
    BOOST_TEST((lr >= 1e-4 && lr < 1e-1));
    BOOST_TEST((depth >= 2 && depth <= 8));
    low = low || depth == 2;
    high = high || depth == 8;
  }
  BOOST_TEST((low && high));
  // The first sample is fixed by the seed on every machine and build.
  BOOST_TEST(soma::text(*a[0].find("act")) == soma::text(*soma::samples(1, 7, axes)[0].find("act")));
  BOOST_TEST(has(thrown<std::invalid_argument>([] { (void)soma::grid({{"x", {}}}); }),
                 "the grid's axis 'x' has no values"));
  BOOST_TEST(has(thrown<std::invalid_argument>([] { (void)soma::grid({{"x", {1.0}}, {"x", {2.0}}}); }),
                 "the parameter 'x' is given twice"));
}

BOOST_AUTO_TEST_CASE(values_are_typed_and_say_what_they_hold_when_asked_wrong) {
  soma::values v{{"lr", 0.5}, {"depth", std::int64_t{300}}, {"act", std::string{"relu"}}, {"bn", true}};
  BOOST_TEST(v.get<double>("depth") == 300.0); // a whole number reads as a number
  BOOST_TEST(v.get<bool>("bn"));
  BOOST_TEST(v.get<std::string>("act") == "relu");
  auto missing = thrown<soma::value_missing>([&] { (void)v.get<double>("rate"); });
  BOOST_TEST(missing == "there is no value named 'rate'; there are: lr, depth, act, bn", missing);
  auto narrow = thrown<soma::value_missing>([&] { (void)v.get<std::int8_t>("depth"); });
  BOOST_TEST(narrow == "the value 'depth' is a whole number (300), not a whole number that fits its type", narrow);
  auto wrong = thrown<soma::value_missing>([&] { (void)v.get<std::int64_t>("lr"); });
  BOOST_TEST(wrong == "the value 'lr' is a real (0.5), not a whole number", wrong);
  v.set("lr", 0.25);
  BOOST_TEST(v.size() == 4u);
  BOOST_TEST(soma::text(soma::value{0.1}) == "0.1");
}

BOOST_AUTO_TEST_CASE(bad_names_unknown_studies_and_read_only_stores_are_clear_errors) {
  scratch tmp;
  std::optional<soma::store> writer{std::in_place, tmp / "s"};
  auto& s = *writer;
  auto dotted = thrown<soma::store_error>([&] { soma::add_trials(s, "a.b", {{}}); });
  BOOST_TEST(has(dotted, "the study name 'a.b' holds a '/', a '.' or a control character"), dotted);
  BOOST_TEST(has(thrown<soma::store_error>([&] { soma::add_trials(s, "", {{}}); }), "a study needs a name"));
  auto none = thrown<soma::no_study_error>([&] { (void)soma::trials(s, "nope"); });
  BOOST_TEST(has(none, "has no study named 'nope'; it has none yet"), none);
  soma::add_trials(s, "real", {{}});
  none = thrown<soma::no_study_error>([&] { (void)soma::claim_trial(s, "nope", "m-1"); });
  BOOST_TEST(has(none, "has no study named 'nope'; it has 'real' (`soma trials` lists them)"), none);
  none = thrown<soma::no_study_error>([&] { (void)soma::reclaim(s, "nope", 5); });
  BOOST_TEST(has(none, "no study named 'nope'"), none);
  BOOST_TEST(has(thrown<soma::store_error>([&] { (void)soma::reclaim(s, "real", -1); }),
                 "0 or more, not -1.0"));
  writer.reset(); // a read-only handle beside a writable one in this process would share it
  soma::store reader{tmp / "s", {.read_only = true}};
  BOOST_TEST(has(thrown<soma::store_error>([&] { (void)soma::claim_trial(reader, "real", "m-1"); }),
                 "it was opened read-only"));
}

BOOST_AUTO_TEST_SUITE_END()
