// Claimants in many processes, claiming from one local store: every trial
// done exactly once; killed claimants' trials stay claimed, grow quiet and
// are handed back by the rule; a study grown while it is claimed.

#include <boost/test/unit_test.hpp>

#include <chrono>
#include <map>
#include <memory>
#include <set>
#include <thread>

#include "../store/child.hpp"
#include "../store/scratch.hpp"
#include "waiting.hpp"
#include "soma/soma.hpp"

using namespace std::chrono_literals;
using soma_test::child;
using soma_test::scratch;
using soma_test::store_shows;

namespace {

std::unique_ptr<child> claimant(const std::string& store, const std::string& study,
                                const std::string& wait_ms = "0") {
  return std::make_unique<child>(std::vector<std::string>{SOMA_CLAIM_CHILD, store, study, wait_ms});
}

// Every trial done, each once, by its own number.
void every_trial_done_once(const soma::store& s, const std::string& study, std::size_t n) {
  auto rows = soma::trials(s, study);
  BOOST_REQUIRE_EQUAL(rows.size(), n);
  for (auto& r : rows) {
    BOOST_TEST_CONTEXT("trial " << r.number) {
      BOOST_TEST(r.state == soma::trial_state::done);
      BOOST_TEST(r.result.get<std::int64_t>("n") == static_cast<std::int64_t>(r.number));
      BOOST_TEST(r.result.get<std::string>("by") == r.claimant);
    }
  }
}

// How many trials of `study` are done.
std::uint64_t done_of(const soma::store& s, const std::string& study) {
  for (auto& st : soma::studies(s))
    if (st.study.name == study)
      return st.done;
  return 0;
}

// The claimant's quiet_s: its latest reading behind the newest of any machine.
double quiet_of(const soma::store& s, const std::string& id) {
  auto latest = soma::standing(s);
  soma::quietness q{latest};
  auto at = latest.find(id);
  return at == latest.end() ? -1 : q.of(at->second);
}

} // namespace

BOOST_AUTO_TEST_SUITE(claims)

BOOST_AUTO_TEST_CASE(eight_processes_claim_500_trials_and_each_is_done_exactly_once) {
  scratch tmp;
  auto dir = tmp / "s";
  {
    soma::store s{dir};
    std::vector<soma::values> trials;
    for (std::int64_t i = 0; i < 500; ++i)
      trials.push_back({{"i", i}});
    soma::add_trials(s, "many", trials);
  }
  std::vector<std::unique_ptr<child>> claimants;
  for (int i = 0; i < 8; ++i)
    claimants.push_back(claimant(dir, "many"));
  std::uint64_t finished = 0;
  std::set<std::string> ids;
  for (auto& c : claimants) {
    auto id = c->until("ready ", 60s);
    BOOST_REQUIRE(id);
    ids.insert(*id);
    auto k = c->until("finished ", 120s);
    BOOST_REQUIRE(k);
    finished += std::stoull(*k);
    BOOST_TEST(c->wait() == 0);
  }
  BOOST_TEST(ids.size() == 8u);
  BOOST_TEST(finished == 500u);
  soma::store s{dir, {.read_only = true}};
  every_trial_done_once(s, "many", 500);
  std::map<std::string, std::uint64_t> by;
  for (auto& r : soma::trials(s, "many")) {
    BOOST_TEST(r.attempt == 1u);
    ++by[r.claimant];
  }
  // Each claimant's readings say how many it finished, as its table does.
  auto latest = soma::standing(s);
  for (auto& [id, n] : by) {
    BOOST_REQUIRE(latest.count(id));
    BOOST_TEST(latest[id].claims == "many");
    BOOST_TEST(latest[id].trials == n); // its last reading, written as it ended
  }
}

BOOST_AUTO_TEST_CASE(killed_claimants_keep_their_trials_grow_quiet_and_reclaim_hands_back_exactly_those) {
  scratch tmp;
  auto dir = tmp / "s";
  soma::store s{dir};
  std::vector<soma::values> trials{{{"hang", true}}, {{"hang", true}}};
  for (std::int64_t i = 0; i < 40; ++i)
    trials.push_back({{"i", i}, {"forwards", std::int64_t{2}}});
  soma::add_trials(s, "killed", trials);

  // Two claimants take trials 0 and 1 and hold them; both are SIGKILLed.
  auto a = claimant(dir, "killed"), b = claimant(dir, "killed");
  auto a_id = a->until("ready ", 60s), b_id = b->until("ready ", 60s);
  BOOST_REQUIRE((a_id && b_id));
  BOOST_REQUIRE(a->until("holding ", 60s));
  BOOST_REQUIRE(b->until("holding ", 60s));
  a->kill(SIGKILL);
  b->kill(SIGKILL);
  a->wait();
  b->wait();

  // Two others do the rest, and wait for more.
  auto c = claimant(dir, "killed", "20000"), d = claimant(dir, "killed", "20000");
  auto c_id = c->until("ready ", 60s);
  BOOST_REQUIRE(c_id);
  BOOST_REQUIRE(d->until("ready ", 60s));
  // The killed claimants' trials stay claimed, and their quiet_s grows while
  // the others write: nothing times them out.
  auto rows = soma::trials(s, "killed");
  BOOST_TEST(rows[0].state == soma::trial_state::claimed);
  BOOST_TEST(rows[1].state == soma::trial_state::claimed);
  std::set<std::string> holders{rows[0].claimant, rows[1].claimant};
  BOOST_TEST((holders == std::set<std::string>{*a_id, *b_id}));
  auto first = quiet_of(s, *a_id);
  BOOST_TEST(store_shows(dir, [&] { return quiet_of(s, *a_id) >= first + 1.5; }, 30s));
  BOOST_TEST(quiet_of(s, *b_id) >= 1.5);
  BOOST_TEST(quiet_of(s, *c_id) < 1.0);
  rows = soma::trials(s, "killed");
  BOOST_TEST(rows[0].state == soma::trial_state::claimed);
  BOOST_TEST(rows[1].state == soma::trial_state::claimed);

  // The rule hands back exactly those two; the live claimants finish them.
  auto handed = soma::reclaim(s, "killed", 1.0);
  BOOST_TEST((handed == std::vector<std::uint64_t>{0, 1}));
  BOOST_TEST(store_shows(dir, [&] { return done_of(s, "killed") == 42; }, 60s));
  every_trial_done_once(s, "killed", 42);
  rows = soma::trials(s, "killed");
  for (std::uint64_t n : {0u, 1u}) {
    BOOST_REQUIRE_EQUAL(rows[n].abandoned.size(), 1u);
    auto& gone = rows[n].abandoned[0];
    BOOST_TEST((gone.claimant == *a_id || gone.claimant == *b_id));
    BOOST_TEST(gone.attempt == 1u);
    BOOST_TEST(gone.why.find("behind the newest writer's (rule: quiet_s over 1.0)") != std::string::npos,
               gone.why);
    BOOST_TEST(rows[n].attempt == 2u);
    BOOST_TEST(rows[n].run == "killed." + std::to_string(n) + ".2");
  }
  for (std::size_t n = 2; n < rows.size(); ++n)
    BOOST_TEST(rows[n].abandoned.empty());
  // Each attempt that recorded has a run of its own; the reclaimed ones too.
  BOOST_TEST(soma::forwards(s, rows[2].run).size() == 2u);
  c->kill(SIGKILL);
  d->kill(SIGKILL);
}

BOOST_AUTO_TEST_CASE(a_study_grown_while_it_is_claimed_is_done_once_through) {
  scratch tmp;
  auto dir = tmp / "s";
  soma::store s{dir};
  auto batch = [&](std::int64_t from) {
    std::vector<soma::values> xs;
    for (std::int64_t i = from; i < from + 50; ++i)
      xs.push_back({{"i", i}, {"forwards", std::int64_t{30}}});
    soma::add_trials(s, "grown", xs);
  };
  batch(0);
  // Added while one claimant is half-way through the first batch, and again
  // once three more have begun on the second.
  std::vector<std::unique_ptr<child>> claimants;
  claimants.push_back(claimant(dir, "grown", "1500"));
  for (int i = 0; i < 5; ++i)
    BOOST_REQUIRE(claimants[0]->until("claimed ", 30s));
  batch(50);
  for (int i = 0; i < 3; ++i)
    claimants.push_back(claimant(dir, "grown", "1500"));
  BOOST_REQUIRE(claimants[1]->until("claimed ", 30s));
  batch(100);
  std::uint64_t finished = 0;
  for (auto& c : claimants) {
    auto k = c->until("finished ", 60s);
    BOOST_REQUIRE(k);
    finished += std::stoull(*k);
  }
  BOOST_TEST(finished == 150u);
  every_trial_done_once(s, "grown", 150);
  BOOST_TEST(soma::study(s, "grown").trials == 150u);
}

BOOST_AUTO_TEST_SUITE_END()
