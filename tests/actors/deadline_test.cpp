// A forward's deadline (forward_options.deadline): past it the caller gets
// an error naming the node the forward was at, an actor that asked gets the
// same, `broke` says so once that node returns, and nothing runs after.

#include <boost/test/unit_test.hpp>

#include <atomic>
#include <future>
#include <thread>

#include "fixture.hpp"
#include "soma/error.hpp"
#include "soma/forward_error.hpp"
#include "soma/graph.hpp"

using namespace soma_test;
using clock_type = std::chrono::steady_clock;
using std::chrono::milliseconds;

namespace {

/// Sleeps its input in milliseconds, then passes it on.
struct Nap : soma::node<Nap, int, int> {
  Out forward(const In& ms, soma::context&) override {
    std::this_thread::sleep_for(milliseconds(ms));
    return ms;
  }
};

/// Counts how often it ran.
struct Counted : soma::node<Counted, int, int> {
  std::shared_ptr<std::atomic<int>> runs = std::make_shared<std::atomic<int>>(0);
  Out forward(const In& x, soma::context&) override {
    ++*runs;
    return x;
  }
};

} // namespace

BOOST_FIXTURE_TEST_SUITE(forward_deadline, system_fixture)

BOOST_AUTO_TEST_CASE(a_forward_past_its_deadline_throws_in_time_and_goes_no_further) {
  Counted after;
  auto runs = after.runs;
  auto g = soma::graph::somatize(sys, Nap{}.named("nap") >> std::move(after).named("after"));
  auto facts = std::make_shared<collected>();
  auto watcher = spawn_collector(sys, facts);
  auto began = clock_type::now();
  try {
    (void)g.forward(600, {.watching = soma::watching{watcher}, .deadline = milliseconds(150)});
    BOOST_FAIL("a forward past its deadline gave a value");
  } catch (const soma::forward_error& e) {
    BOOST_TEST(e.node() == "nap");
    BOOST_TEST(e.error() == "the forward did not end within 150 ms (forward_options.deadline)");
  }
  auto took = std::chrono::duration_cast<milliseconds>(clock_type::now() - began).count();
  BOOST_TEST(took >= 150);
  BOOST_TEST(took < 450, "the caller waited " << took << " ms for a 150 ms deadline");
  // The node returns later; the record then says what happened, once.
  BOOST_REQUIRE(facts->wait_for(2));
  auto seen = facts->facts();
  BOOST_TEST(names(seen) == (std::vector<std::string>{"ran", "broke"}), boost::test_tools::per_element());
  BOOST_TEST(seen[0]["node"] == "nap");
  BOOST_TEST(seen[1]["node"] == "nap");
  BOOST_TEST(seen[1]["error"] == "the forward did not end within 150 ms (forward_options.deadline)");
  BOOST_TEST(runs->load() == 0, "a node after the deadline ran");
  // The graph stays usable, within a deadline and without one.
  BOOST_TEST(g.forward(1, {.deadline = milliseconds(5000)}) == 1);
  BOOST_TEST(g.forward(1) == 1);
  BOOST_TEST(runs->load() == 2);
}

BOOST_AUTO_TEST_CASE(a_callable_watcher_is_told_nothing_after_its_caller_gave_up) {
  auto g = soma::graph::somatize(sys, Nap{}.named("nap") >> Counted{}.named("after"));
  auto told = std::make_shared<std::atomic<int>>(0);
  {
    std::vector<soma::fact> mine; // on this frame: must not be touched once it is gone
    BOOST_CHECK_THROW((void)g.forward(400, {.watching = [&mine, told](const soma::fact& f) {
                                                mine.push_back(f);
                                                ++*told;
                                              },
                                              .deadline = milliseconds(100)}),
                      soma::forward_error);
    BOOST_TEST(told->load() == 0);
  }
  // The node returns 300 ms later; a forward after it proves it did.
  BOOST_TEST(g.forward(1) == 1);
  BOOST_TEST(told->load() == 0);
}

BOOST_AUTO_TEST_CASE(an_actor_that_asked_gets_the_deadline_error_in_time) {
  auto g = soma::graph::somatize(sys, Nap{}.named("nap"));
  std::promise<std::string> answer;
  auto began = clock_type::now();
  soma::forward_options o;
  o.deadline = milliseconds(150);
  sys.spawn([&answer, graph = g.actor(), o](caf::event_based_actor* self) {
    self->request(graph, caf::infinite, soma::forward_atom::value, 800, o)
      .then([&answer](int) { answer.set_value("a value"); },
            [&answer](caf::error& e) { answer.set_value(soma::describe(e)); });
  });
  auto fut = answer.get_future();
  BOOST_REQUIRE(fut.wait_for(soma_test::deadline) == std::future_status::ready);
  auto took = std::chrono::duration_cast<milliseconds>(clock_type::now() - began).count();
  auto said = fut.get();
  BOOST_TEST(said.find("the forward did not end within 150 ms (forward_options.deadline)") != std::string::npos, said);
  BOOST_TEST(took < 500, took << " ms");
}

BOOST_AUTO_TEST_CASE(a_forward_within_its_deadline_is_unchanged) {
  auto g = seed_graph(sys);
  std::vector<soma::fact> seen;
  BOOST_TEST(g.forward("the quick brown fox", {.watching = [&](const soma::fact& f) { seen.push_back(f); },
                                               .deadline = milliseconds(5000)})
             == 2.0);
  BOOST_TEST(names(seen) == (std::vector<std::string>{"ran", "ran", "ran", "finished"}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_SUITE_END()
