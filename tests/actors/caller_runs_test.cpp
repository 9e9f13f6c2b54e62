#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <functional>
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
  std::vector<long> inputs; ///< what each node was given, in the same order
  void add(long input = 0) {
    std::lock_guard guard{mtx};
    ids.push_back(std::this_thread::get_id());
    inputs.push_back(input);
  }
  void clear() {
    std::lock_guard guard{mtx};
    ids.clear();
    inputs.clear();
  }
  std::vector<long> all_inputs() {
    std::lock_guard guard{mtx};
    return inputs;
  }
  std::vector<std::thread::id> all() {
    std::lock_guard guard{mtx};
    return ids;
  }
};

// How many times a node was destroyed, told to whoever waits for it.
struct gone_count {
  std::mutex mtx;
  std::condition_variable cv;
  int n = 0;
  void add() {
    {
      std::lock_guard guard{mtx};
      ++n;
    }
    cv.notify_all();
  }
  int now() {
    std::lock_guard guard{mtx};
    return n;
  }
  /// Waits until it was destroyed (the test's deadline at most).
  bool wait() {
    std::unique_lock guard{mtx};
    return cv.wait_for(guard, deadline, [&] { return n > 0; });
  }
};

struct Noting : soma::node<Noting, long, long> {
  std::shared_ptr<threads_seen> seen;
  long by;
  std::shared_ptr<gone_count> destroyed = std::make_shared<gone_count>();
  Noting(std::shared_ptr<threads_seen> s, long b) : seen(std::move(s)), by(b) {}
  Noting(const Noting&) = default;
  Noting(Noting&& other) noexcept = default;
  ~Noting() {
    if (destroyed && seen)
      destroyed->add();
  }
  Out forward(const In& x, soma::context&) override {
    seen->add(x);
    if (x < 0)
      throw std::runtime_error("negative");
    return x + by;
  }
};

auto noting_graph(caf::actor_system& sys, const std::shared_ptr<threads_seen>& seen) {
  return soma::graph::somatize(sys, Noting{seen, 1}.named("a") >> Noting{seen, 10}.named("b")
                                      >> Noting{seen, 100}.named("c"));
}

// Forwards until one ran whole on this thread (a node actor's first run,
// its start, is on a worker, and a worker that ran a node for an earlier
// forward may still hold it when the next reaches it); false when none of
// 1000 did. After it, the nodes are idle whenever this thread's next
// forward reaches them, while nothing else sends to them.
template <class Graph>
bool runs_whole_here(const Graph& g, threads_seen& seen) {
  auto me = std::this_thread::get_id();
  for (int i = 0; i < 1000; ++i) {
    auto before = seen.all().size();
    if (g.forward(1, {}) != 112)
      return false;
    auto ids = seen.all();
    if (std::all_of(ids.begin() + static_cast<std::ptrdiff_t>(before), ids.end(),
                    [&](auto id) { return id == me; })) {
      seen.clear();
      return true;
    }
  }
  return false;
}

} // namespace

BOOST_FIXTURE_TEST_SUITE(caller_runs, system_fixture)

BOOST_AUTO_TEST_CASE(a_blocked_caller_runs_the_idle_nodes_of_its_graph_and_its_callables_on_its_thread) {
  auto seen = std::make_shared<threads_seen>();
  auto g = noting_graph(sys, seen);
  auto me = std::this_thread::get_id();
  BOOST_REQUIRE_MESSAGE(runs_whole_here(g, *seen), "no forward of 1000 ran whole on its blocked caller's thread");
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
  BOOST_REQUIRE(runs_whole_here(g, *seen));
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
    BOOST_REQUIRE(seen->all().size() == 1u);
    BOOST_TEST((seen->all().front() == std::this_thread::get_id()),
               "the node that threw ran on another thread than its blocked caller's");
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

BOOST_AUTO_TEST_CASE(a_caller_runs_its_own_forwards_steps_and_no_actors) {
  // An actor keeps 16 forwards asked of the graph's actor in flight while
  // this thread forwards: a node this caller woke may hold asked steps
  // behind its own; those are the workers' to run, not this caller's.
  auto seen = std::make_shared<threads_seen>();
  auto g = noting_graph(sys, seen);
  BOOST_REQUIRE(runs_whole_here(g, *seen));
  auto asked = std::make_shared<std::atomic<int>>(0);
  auto asker = sys.spawn([graph = g.actor(), asked](caf::event_based_actor* self) -> caf::behavior {
    auto ask = std::make_shared<std::function<void(long)>>();
    *ask = [self, graph, asked, ask](long x) {
      self->request(graph, caf::infinite, soma::forward_atom::value, x).then([asked, ask, x](long out) {
        if (out == x + 111 && ++*asked < 20000)
          (*ask)(x + 1);
      });
    };
    for (long i = 0; i < 16; ++i)
      (*ask)(1'000'000 * (i + 1));
    return {[](caf::unit_t) {}};
  });
  auto me = std::this_thread::get_id();
  // At least 3000 of its own, and on until the actor's forwards overlapped
  // them (200 answered): a quick caller may finish 3000 before the actor
  // has started.
  long mine = 0, forwarded = 0;
  auto until = std::chrono::steady_clock::now() + deadline;
  for (long i = 0; (i < 3000 || asked->load() < 200) && std::chrono::steady_clock::now() < until; ++i) {
    ++forwarded;
    mine += g.forward(i, {}) == i + 111 ? 1 : 0;
  }
  BOOST_TEST(mine == forwarded);
  BOOST_REQUIRE_MESSAGE(asked->load() >= 200, "the actor's forwards were answered "
                                                << asked->load() << " times by the deadline");
  caf::anon_send_exit(asker, caf::exit_reason::user_shutdown);
  auto ids = seen->all();
  auto inputs = seen->all_inputs();
  std::size_t asked_here = 0, asked_ran = 0;
  for (std::size_t i = 0; i < ids.size(); ++i)
    if (inputs[i] >= 1'000'000) {
      ++asked_ran;
      if (ids[i] == me)
        ++asked_here;
    }
  BOOST_TEST(asked_ran > 0u);
  BOOST_TEST(asked_here == 0u, asked_here << " steps of asked forwards ran on a blocked caller's thread");
}

BOOST_AUTO_TEST_CASE(a_graph_whose_nodes_ran_on_its_caller_lets_them_go_with_it) {
  // Node actors that ran on the caller still end with their graph, and the
  // nodes they own are destroyed then, not before. (CAF destroys an actor's
  // state when it ends, whatever references remain: a reference the caller
  // kept would not show here. Reference counts are the review's, not this
  // test's.)
  auto seen = std::make_shared<threads_seen>();
  Noting a{seen, 1}, b{seen, 10};
  auto a_gone = a.destroyed, b_gone = b.destroyed;
  {
    auto g = soma::graph::somatize(sys, std::move(a).named("a") >> std::move(b).named("b"));
    for (long i = 0; i < 100; ++i)
      BOOST_REQUIRE(g.forward(i, {}) == i + 11);
    auto ids = seen->all();
    BOOST_TEST((std::count(ids.begin(), ids.end(), std::this_thread::get_id()) > 0),
               "no node of 100 forwards ran on the caller's thread");
    BOOST_REQUIRE_MESSAGE(a_gone->now() == 0 && b_gone->now() == 0,
                          "a node was destroyed while its graph was there");
  }
  BOOST_TEST(a_gone->wait(), "node a was never destroyed after its graph went");
  BOOST_TEST(b_gone->wait(), "node b was never destroyed after its graph went");
}

BOOST_AUTO_TEST_SUITE_END()
