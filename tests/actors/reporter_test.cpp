// The reporter and its backoff: waits that double to a cap, jittered; a
// store not reached yet is tried again on the backoff, one log line per
// failed try, its readings dropped and counted, and reported once reached;
// a reporter waiting to try again stops at once. These run the reporter as
// it runs in a worker (its own timed wait, in real time);
// deterministic_test.cpp drives the same steps message by message on the
// test clock.

#include <boost/test/unit_test.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <set>

#include <caf/scoped_actor.hpp>
#include <caf/send.hpp>

#include "../store/scratch.hpp"
#include "fixture.hpp"
#include "soma/backoff.hpp"
#include "soma/machine.hpp"
#include "soma/reporter.hpp"
#include "soma/store/readings.hpp"
#include "soma/store/standing.hpp"

using namespace soma_test;
using std::chrono::milliseconds;

BOOST_AUTO_TEST_SUITE(backoff)

BOOST_AUTO_TEST_CASE(waits_double_from_the_first_to_the_cap_each_between_half_and_all) {
  soma::backoff b{{}, 42};
  // 0.1 s, 0.2, 0.4, 0.8, 1.6, 3.2, then 5 s for ever.
  std::int64_t full[] = {100, 200, 400, 800, 1600, 3200, 5000, 5000, 5000};
  for (auto f : full) {
    auto w = b.next().count();
    BOOST_TEST(w >= f / 2, w << " for " << f);
    BOOST_TEST(w <= f, w << " for " << f);
  }
  for (int i = 0; i < 2000; ++i)
    BOOST_TEST(b.next().count() <= 5000); // never past the cap, however long it fails
  BOOST_TEST(b.failures() > 100u);
  b.reset();
  BOOST_TEST(b.failures() == 0u);
  BOOST_TEST(b.next().count() <= 100);
}

BOOST_AUTO_TEST_CASE(two_machines_that_fail_together_do_not_wait_alike) {
  // The jitter: ten backoffs, seeded apart, give their fifth wait spread out.
  std::set<std::int64_t> fifth;
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    soma::backoff b{{}, seed};
    for (int i = 0; i < 4; ++i)
      (void)b.next();
    fifth.insert(b.next().count());
  }
  BOOST_TEST(fifth.size() >= 5u);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_FIXTURE_TEST_SUITE(reporter, system_fixture)

namespace {

/// What a reporter's callbacks say, from its thread: the lines it logged and
/// the readings it wrote, waited for with the tests' deadline.
class said_by_reporter {
public:
  void log(const std::string& line) {
    std::lock_guard hold{lock_};
    lines_.push_back(line);
    changed_.notify_all();
  }
  void wrote(bool w) {
    std::lock_guard hold{lock_};
    written_ += w ? 1 : 0;
    changed_.notify_all();
  }
  /// Whether `lines` lines were logged within the deadline.
  bool logged(std::size_t lines) {
    std::unique_lock hold{lock_};
    return changed_.wait_for(hold, deadline, [&] { return lines_.size() >= lines; });
  }
  /// Whether `readings` readings were written within the deadline.
  bool written(int readings) {
    std::unique_lock hold{lock_};
    return changed_.wait_for(hold, deadline, [&] { return written_ >= readings; });
  }
  std::vector<std::string> lines() {
    std::lock_guard hold{lock_};
    return lines_;
  }

private:
  std::mutex lock_;
  std::condition_variable changed_;
  std::vector<std::string> lines_;
  int written_ = 0;
};

} // namespace

BOOST_AUTO_TEST_CASE(a_store_not_reached_yet_is_tried_on_the_backoff_and_reported_once_reached) {
  scratch dir;
  said_by_reporter said;
  std::atomic<int> tries{0}, dropped{0};
  // Reached at the fifth try.
  auto open = [&, path = dir / "kept"]() -> soma::store {
    if (++tries < 5)
      throw soma::store_error("cannot reach the served store soma://test:1: nobody there",
                              soma::store_trouble::unreachable);
    return soma::store{path};
  };
  auto sampler = std::make_shared<soma::machine_sampler>();
  auto r = soma::spawn_reporter(
    sys, soma::reporting_to{.open = open, .name = "soma://test:1"}, sampler,
    soma::reporter_options{.every = std::chrono::microseconds(20000),
                           .counts = [] { return soma::reported{}; },
                           .log = [&](const std::string& line) { said.log(line); },
                           .wrote = [&](bool w) { said.wrote(w); },
                           .dropped = [&] { ++dropped; },
                           .retry = {.first = milliseconds(20), .cap = milliseconds(80)}});
  bool wrote_two = said.written(2);
  caf::anon_send_exit(r, caf::exit_reason::user_shutdown);
  BOOST_REQUIRE(wrote_two);
  auto text = said.lines();
  // One line per failed try, naming the store, why and the next wait.
  BOOST_REQUIRE_EQUAL(text.size(), 5u);
  for (int i = 0; i < 4; ++i) {
    BOOST_TEST(text[i].starts_with("readings: cannot reach the served store soma://test:1: nobody there; "
                                   "trying again in 0.0"),
               text[i]);
    BOOST_TEST(text[i].find("dropped so far)") != std::string::npos, text[i]);
  }
  BOOST_TEST(tries == 5);
  BOOST_TEST(dropped >= 1);
  BOOST_TEST(text[4] == "readings: reached " + dir / "kept" + "; " + std::to_string(dropped.load())
                          + (dropped == 1 ? " reading" : " readings") + " dropped while it was unreachable");
  // What it wrote is there.
  BOOST_TEST(soma::standing(soma::store{dir / "kept", {.read_only = true}}).count(sampler->id()) == 1u);
}

BOOST_AUTO_TEST_CASE(a_reporter_waiting_to_try_again_stops_at_once) {
  said_by_reporter said;
  auto r = soma::spawn_reporter(
    sys,
    soma::reporting_to{.open = []() -> soma::store {
                         throw soma::store_error("nobody there", soma::store_trouble::unreachable);
                       },
                       .name = "soma://test:1"},
    std::make_shared<soma::machine_sampler>(),
    soma::reporter_options{.every = std::chrono::microseconds(10000000),
                           .counts = [] { return soma::reported{}; },
                           .log = [&](const std::string& line) { said.log(line); },
                           .retry = {.first = milliseconds(60000), .cap = milliseconds(60000)}});
  // Its first try failed: it waits 30 to 60 s for the next.
  BOOST_REQUIRE(said.logged(1));
  BOOST_REQUIRE_EQUAL(said.lines().size(), 1u);
  caf::scoped_actor self{sys};
  self->monitor(r);
  auto began = std::chrono::steady_clock::now();
  caf::anon_send_exit(r, caf::exit_reason::user_shutdown);
  bool gone = false;
  self->receive([&](caf::down_msg&) { gone = true; }, caf::after(deadline) >> [] {});
  BOOST_TEST(gone);
  BOOST_TEST((std::chrono::steady_clock::now() - began < milliseconds(1000)));
}

BOOST_AUTO_TEST_SUITE_END()
