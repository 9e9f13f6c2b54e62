#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>
#include <vector>

#include <caf/scoped_actor.hpp>

#include "fixture.hpp"
#include "soma/graph.hpp"

using namespace soma_test;

namespace {

// Where each node ran, in the order they ran.
struct threads_seen {
  std::mutex mtx;
  std::vector<std::thread::id> ids;
  void add() {
    std::lock_guard guard{mtx};
    ids.push_back(std::this_thread::get_id());
  }
  void clear() {
    std::lock_guard guard{mtx};
    ids.clear();
  }
  std::vector<std::thread::id> all() {
    std::lock_guard guard{mtx};
    return ids;
  }
};

struct Noting : soma::node<Noting, long, long> {
  std::shared_ptr<threads_seen> seen;
  long by;
  Noting(std::shared_ptr<threads_seen> s, long b) : seen(std::move(s)), by(b) {}
  Out forward(const In& x, soma::context&) override {
    seen->add();
    if (x < 0)
      throw std::runtime_error("negative");
    return x + by;
  }
};

auto noting_graph(caf::actor_system& sys, const std::shared_ptr<threads_seen>& seen) {
  return soma::graph::somatize(sys, Noting{seen, 1}.named("a") >> Noting{seen, 10}.named("b")
                                      >> Noting{seen, 100}.named("c"));
}

} // namespace

BOOST_FIXTURE_TEST_SUITE(caller_runs, system_fixture)

BOOST_AUTO_TEST_CASE(a_blocked_caller_runs_the_idle_nodes_of_its_graph_and_its_callables_on_its_thread) {
  auto seen = std::make_shared<threads_seen>();
  auto g = noting_graph(sys, seen);
  auto me = std::this_thread::get_id();
  // Not at once: a node actor's first run (its start) is on a worker, and a
  // worker that ran a node for an earlier forward may still hold it when
  // the next forward reaches it. Once one forward ran here whole, the
  // nodes are idle whenever this caller's forward reaches them.
  bool whole_here = false;
  for (int i = 0; i < 1000 && !whole_here; ++i) {
    auto before = seen->all().size();
    BOOST_REQUIRE(g.forward(1, {}) == 112);
    auto ids = seen->all();
    whole_here = std::all_of(ids.begin() + static_cast<std::ptrdiff_t>(before), ids.end(),
                             [&](auto id) { return id == me; });
  }
  BOOST_REQUIRE_MESSAGE(whole_here, "no forward of 1000 ran whole on its blocked caller's thread");
  seen->clear();
  // A watcher actor is told the facts, and runs where CAF's scheduler puts
  // it: not on the caller's thread, which leaves once its forward ended.
  auto told = std::make_shared<collected>();
  auto actor_threads = std::make_shared<threads_seen>();
  auto watcher = sys.spawn([told, actor_threads](caf::event_based_actor*) -> caf::behavior {
    return {[told, actor_threads](const soma::fact& f) {
      actor_threads->add();
      told->push(f);
    }};
  });
  std::vector<std::thread::id> callable_threads;
  for (long i = 0; i < 20; ++i) {
    auto out = g.forward(i, {.watching = {[&](const soma::fact&) {
                                            callable_threads.push_back(std::this_thread::get_id());
                                          },
                                          watcher}});
    BOOST_TEST(out == i + 111);
  }
  auto ids = seen->all();
  BOOST_TEST(ids.size() == 60u);
  for (auto& id : ids)
    BOOST_TEST((id == me), "a node ran on another thread than its blocked caller's");
  BOOST_TEST(callable_threads.size() == 80u);
  for (auto& id : callable_threads)
    BOOST_TEST((id == me), "a callable watcher was told on another thread than the caller's");
  BOOST_REQUIRE(told->wait_for(80));
  auto facts = told->facts();
  BOOST_TEST(facts.size() == 80u);
  for (std::size_t i = 0; i + 3 < facts.size(); i += 4) {
    BOOST_TEST(facts[i]["node"] == "a");
    BOOST_TEST(facts[i + 1]["node"] == "b");
    BOOST_TEST(facts[i + 2]["node"] == "c");
    BOOST_TEST(facts[i + 3].name == "finished");
  }
  for (auto& id : actor_threads->all())
    BOOST_TEST((id != me), "a watcher actor ran on the blocked caller's thread");
}

BOOST_AUTO_TEST_CASE(with_a_deadline_the_nodes_run_on_the_schedulers_threads) {
  // A caller inside a slow node could not give up at its deadline.
  auto seen = std::make_shared<threads_seen>();
  auto g = noting_graph(sys, seen);
  auto me = std::this_thread::get_id();
  for (long i = 0; i < 5; ++i)
    BOOST_TEST(g.forward(i, {.deadline = std::chrono::seconds(10)}) == i + 111);
  auto ids = seen->all();
  BOOST_TEST(ids.size() == 15u);
  for (auto& id : ids)
    BOOST_TEST((id != me), "a node of a forward with a deadline ran on its caller's thread");
}

BOOST_AUTO_TEST_CASE(a_node_that_throws_on_the_callers_thread_ends_the_forward_and_the_graph_goes_on) {
  auto seen = std::make_shared<threads_seen>();
  auto g = noting_graph(sys, seen);
  {
    std::vector<soma::fact> facts;
    try {
      (void)g.forward(-5, {.watching = {[&](const soma::fact& f) { facts.push_back(f); }}});
      BOOST_FAIL("a forward whose first node threw returned");
    } catch (const soma::forward_error& e) {
      BOOST_TEST(e.node() == "a");
      BOOST_TEST(std::string{e.what()}.find("negative") != std::string::npos, e.what());
    }
    BOOST_REQUIRE(facts.size() == 2u);
    BOOST_TEST(facts[0].name == "failed");
    BOOST_TEST(facts[1].name == "broke");
  }
  BOOST_TEST(g.forward(1, {}) == 112);
  // The nodes last ran on this thread: an actor asking the graph now is
  // answered from the scheduler's threads all the same.
  caf::scoped_actor self{sys};
  long answer = 0;
  self->request(g.actor(), std::chrono::seconds(10), soma::forward_atom::value, 2L)
    .receive([&](long v) { answer = v; },
             [&](caf::error& e) { BOOST_FAIL("the graph's actor answered " << soma::describe(e)); });
  BOOST_TEST(answer == 113);
  BOOST_TEST((seen->all().back() != std::this_thread::get_id()),
             "an asked forward ran on the thread that asked");
}

BOOST_AUTO_TEST_CASE(four_callers_at_once_each_get_their_own_values_and_facts) {
  // Each caller runs what its forward makes ready; a node busy with another
  // caller's forward is left to that caller, or to a worker once it left.
  auto seen = std::make_shared<threads_seen>();
  auto g = noting_graph(sys, seen);
  std::atomic<int> wrong{0};
  std::vector<std::thread> callers;
  for (int t = 0; t < 4; ++t)
    callers.emplace_back([&, t] {
      for (long i = 0; i < 2000; ++i) {
        long x = t * 100000L + i;
        int facts = 0;
        auto out = g.forward(x, {.watching = {[&](const soma::fact&) { ++facts; }}});
        if (out != x + 111 || facts != 4)
          ++wrong;
      }
    });
  for (auto& c : callers)
    c.join();
  BOOST_TEST(wrong.load() == 0);
  BOOST_TEST(seen->all().size() == 4u * 2000u * 3u);
}

BOOST_AUTO_TEST_SUITE_END()
