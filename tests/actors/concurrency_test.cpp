#include <boost/test/unit_test.hpp>

#include <atomic>
#include <map>
#include <mutex>
#include <thread>

#include "fixture.hpp"
#include "soma/graph.hpp"

using namespace soma_test;

namespace {

struct Add : soma::node<Add, long, long> {
  long by;
  explicit Add(long b) : by(b) {}
  Out forward(const In& x, soma::context&) override { return x + by; }
};

struct Times : soma::node<Times, long, long> {
  Out forward(const In& x, soma::context&) override { return x * 3; }
};

} // namespace

BOOST_FIXTURE_TEST_SUITE(concurrency, system_fixture)

BOOST_AUTO_TEST_CASE(eight_threads_a_thousand_forwards_each_on_one_graph) {
  auto g = soma::graph::somatize(sys, Add{1}.named("add") >> Times{}.named("times")
                                        >> Add{-2}.named("sub"));
  auto shared = std::make_shared<collected>();
  auto shared_actor = spawn_collector(sys, shared);
  // A forward-aware actor too: it is told which forward each fact is of, so
  // it can check every forward's own order although they interleave.
  using by_forward = std::map<std::uint64_t, std::vector<std::string>>;
  auto grouped = std::make_shared<std::pair<std::mutex, by_forward>>();
  auto aware = sys.spawn([grouped](caf::event_based_actor*) -> caf::behavior {
    return {[grouped](const soma::forward_fact& x) {
      std::lock_guard<std::mutex> guard{grouped->first};
      grouped->second[x.forward].push_back(x.fact.name + " " + std::string{x.fact["node"].text()});
    }};
  });
  constexpr int threads = 8;
  constexpr int forwards = 1000;
  std::atomic<int> wrong_values{0}, wrong_facts{0};
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t)
    workers.emplace_back([&, t] {
      for (int i = 0; i < forwards; ++i) {
        long x = t * 100000L + i;
        std::vector<soma::fact> mine;
        auto v = g.forward(x, {.watching = {[&](const soma::fact& f) { mine.push_back(f); },
                                            shared_actor, soma::watcher::forward_aware(aware)}});
        if (v != (x + 1) * 3 - 2)
          ++wrong_values;
        bool ok = mine.size() == 4 && mine[0].name == "ran" && mine[0]["node"] == "add"
                  && mine[1].name == "ran" && mine[1]["node"] == "times"
                  && mine[2].name == "ran" && mine[2]["node"] == "sub"
                  && mine[3].name == "finished";
        if (!ok)
          ++wrong_facts;
      }
    });
  for (auto& w : workers)
    w.join();
  BOOST_TEST(wrong_values.load() == 0);
  BOOST_TEST(wrong_facts.load() == 0);
  // The shared actor got all facts of all forwards, each forward's in order.
  BOOST_REQUIRE(shared->wait_for(threads * forwards * 4));
  auto all = shared->facts();
  BOOST_TEST(all.size() == size_t{threads * forwards * 4});
  size_t ran = 0, finished = 0;
  for (auto& f : all)
    (f.name == "ran" ? ran : finished) += 1;
  BOOST_TEST(ran == size_t{threads * forwards * 3});
  BOOST_TEST(finished == size_t{threads * forwards});
  // Every forward's own facts, in its own order.
  std::vector<std::string> one{"ran add", "ran times", "ran sub", "finished "};
  auto until = std::chrono::steady_clock::now() + deadline;
  for (;;) {
    {
      std::lock_guard<std::mutex> guard{grouped->first};
      size_t total = 0;
      for (auto& [id, names] : grouped->second)
        total += names.size();
      if (total == size_t{threads * forwards * 4})
        break;
    }
    BOOST_REQUIRE(std::chrono::steady_clock::now() < until);
    std::this_thread::sleep_for(std::chrono::milliseconds{5});
  }
  std::lock_guard<std::mutex> guard{grouped->first};
  BOOST_TEST(grouped->second.size() == size_t{threads * forwards});
  size_t out_of_order = 0;
  for (auto& [id, names] : grouped->second)
    out_of_order += names != one;
  BOOST_TEST(out_of_order == 0u);
}

BOOST_AUTO_TEST_SUITE_END()
