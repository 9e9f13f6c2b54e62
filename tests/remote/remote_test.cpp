// Remote nodes on real soma-node processes over loopback: the seed's graph
// with one node on a worker, two workers, slices, and shipping code.

#include <boost/test/unit_test.hpp>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <mutex>
#include <thread>
#include <vector>

#include <openssl/evp.h>

#include "remote_fixture.hpp"
#include "soma/draw/declaration.hpp"

using namespace soma_test;

namespace {

// The SHA-256 of a file, in hex, computed here rather than by soma: the
// hash a worker's refusal must name.
std::string sha256_of(const std::string& path) {
  std::ifstream in{path, std::ios::binary};
  std::string bytes{std::istreambuf_iterator<char>{in}, {}};
  BOOST_REQUIRE_MESSAGE(in && !bytes.empty(), "could not read " << path);
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  BOOST_REQUIRE(EVP_Digest(bytes.data(), bytes.size(), digest, &size, EVP_sha256(), nullptr) == 1);
  std::string hex;
  char two[3];
  for (unsigned int i = 0; i < size; ++i) {
    std::snprintf(two, sizeof two, "%02x", digest[i]);
    hex += two;
  }
  return hex;
}

// A node here that notes the thread each forward ran it on.
struct Here : soma::node<Here, int, int> {
  std::shared_ptr<std::mutex> mtx = std::make_shared<std::mutex>();
  std::shared_ptr<std::vector<std::thread::id>> ran_on = std::make_shared<std::vector<std::thread::id>>();
  Out forward(const In& x, soma::context&) override {
    std::lock_guard guard{*mtx};
    ran_on->push_back(std::this_thread::get_id());
    return x + 100;
  }
  std::vector<std::thread::id> seen() const {
    std::lock_guard guard{*mtx};
    return *ran_on;
  }
};

} // namespace

BOOST_FIXTURE_TEST_SUITE(remote, system_fixture)

BOOST_AUTO_TEST_CASE(the_seeds_graph_with_embed_on_a_worker_says_the_seeds_facts) {
  auto w1 = serving(sys);
  auto broker = soma::broker::embedded({{"w1", w1}});
  auto g = soma::graph::somatize(sys, Tokenize{}.named("tokenize") >> Embed{}.named("embed").at("w1")
                                        >> Score{}.named("score"));
  seen s;
  auto value = g.forward("the quick brown fox", {.watching = s.watcher(), .broker = broker});
  BOOST_TEST(value == 2.0);
  BOOST_TEST(names(s.facts) == (std::vector<std::string>{"ran", "machine", "ran", "left", "ran", "finished"}), said(s.facts));
  auto& machine = s.facts[1];
  for (auto key : {"id", "busy", "memory", "cores", "up_us", "served", "host"})
    BOOST_TEST(has(machine, key), "machine has " << key);
  BOOST_TEST(machine["host"] == "w1");
  BOOST_TEST(machine["served"] == 1); // typed: an integer
  BOOST_TEST(machine["busy"].is_real());
  BOOST_TEST(machine["cores"].is_integer());
  BOOST_TEST(std::string{machine["id"].text()}.find("-" + std::to_string(w1.pid())) != std::string::npos);
  BOOST_TEST(machine["busy"].number().value_or(-1) >= 0.0);
  BOOST_TEST(machine["memory"].number().value_or(-1) > 0.0);
  BOOST_TEST(machine["memory"].number().value_or(-1) < 1.0);
  auto& remote = s.facts[2];
  BOOST_TEST(remote["node"] == "embed");
  BOOST_TEST(remote["host"] == "w1");
  BOOST_TEST(!has(s.facts[0], "host"));
  auto& left = s.facts[3];
  BOOST_TEST(left["host"] == "w1");
  BOOST_TEST(left.fields[0].key == "host");
  BOOST_TEST(num(left, "took_us") >= num(remote, "took_us"));
  BOOST_TEST(num(left, "began_us") >= num(s.facts[0], "began_us") + num(s.facts[0], "took_us"));
  BOOST_TEST(num(s.facts[4], "began_us") >= num(left, "began_us") + num(left, "took_us"));

  // The session is open: the next trips need no reading and no greeting.
  for (int again = 0; again < 3; ++again) {
    seen next;
    auto v = g.forward("with the worker already up", {.watching = next.watcher(), .broker = broker});
    BOOST_TEST(v == 2.2, boost::test_tools::tolerance(1e-12));
    BOOST_TEST(names(next.facts) == (std::vector<std::string>{"ran", "ran", "left", "ran", "finished"}), said(next.facts));
  }
}

BOOST_AUTO_TEST_CASE(two_workers_each_run_their_own_node_and_each_trip_says_left) {
  auto w1 = serving(sys);
  auto w2 = serving(sys);
  BOOST_TEST(w1.pid() != w2.pid());
  auto broker = soma::broker::embedded({{"w1", w1}, {"w2", w2}});
  auto g = soma::graph::somatize(sys, Inc{}.named("a").at("w1") >> Twice{}.named("b").at("w2")
                                        >> Inc{}.named("c"));
  seen s;
  BOOST_TEST(g.forward(3, {.watching = s.watcher(), .broker = broker}) == 9);
  BOOST_TEST(names(s.facts) == (std::vector<std::string>{"machine", "ran", "left", "machine", "doubled", "ran",
                                          "left", "ran", "finished"}), said(s.facts));
  BOOST_TEST(s.facts[0]["host"] == "w1");
  BOOST_TEST(s.facts[3]["host"] == "w2");
  BOOST_TEST(s.facts[0]["id"] != s.facts[3]["id"]);
  BOOST_TEST(s.facts[4]["host"] == "w2"); // a node's own fact is stamped too
  BOOST_TEST(s.facts[4]["from"] == 4); // a number told on the worker arrives a number
  BOOST_TEST(s.facts[4]["from"].is_integer());
  BOOST_TEST(s.facts[4]["as"] == "a number");
  BOOST_TEST(s.facts[2]["took_us"].is_integer());
  BOOST_TEST(s.named("left")[0]["host"] == "w1");
  BOOST_TEST(s.named("left")[1]["host"] == "w2");
  BOOST_TEST(!has(s.facts[7], "host"));
}

BOOST_AUTO_TEST_CASE(consecutive_nodes_on_one_host_go_as_one_trip) {
  auto w1 = serving(sys);
  auto broker = soma::broker::embedded({{"w1", w1}});
  auto g = soma::graph::somatize(sys, Inc{}.named("a").at("w1") >> Twice{}.named("b").at("w1")
                                        >> Inc{}.named("c").at("w1"));
  seen s;
  BOOST_TEST(g.forward(1, {.watching = s.watcher(), .broker = broker}) == 5);
  BOOST_TEST(s.named("left").size() == 1u);
  BOOST_TEST(names(s.facts) == (std::vector<std::string>{"machine", "ran", "doubled", "ran", "ran", "left",
                                          "finished"}), said(s.facts));
  BOOST_TEST(s.facts[1]["node"] == "a");
  BOOST_TEST(s.facts[3]["node"] == "b");
  BOOST_TEST(s.facts[4]["node"] == "c");
}

BOOST_AUTO_TEST_CASE(a_blocked_caller_sends_the_trip_of_a_graph_that_starts_at_a_worker_and_takes_its_answer) {
  // No local actor runs between the caller and the worker: what the answer
  // says is told on the caller's own thread. (Where the local node after it
  // runs: the_caller_that_took_a_workers_answer_runs_the_node_after_the_slice.)
  // A graph that reaches its worker from a local node is carried by the
  // slice's actor, on the scheduler's threads.
  auto w1 = serving(sys);
  auto broker = soma::broker::embedded({{"w1", w1}});
  auto starts_there = soma::graph::somatize(sys, Inc{}.named("a").at("w1") >> Twice{}.named("b").at("w1")
                                                   >> Inc{}.named("c"));
  auto starts_here = soma::graph::somatize(sys, Inc{}.named("a") >> Twice{}.named("b").at("w1"));
  struct told {
    std::string name, node;
    std::thread::id on;
  };
  std::vector<told> facts;
  auto watcher = [&facts](const soma::fact& f) {
    facts.push_back({f.name, has(f, "node") ? std::string{f["node"].text()} : "", std::this_thread::get_id()});
  };
  auto here = std::this_thread::get_id();
  for (int trip = 0; trip < 3; ++trip) { // the first opens the session, the next find it open
    facts.clear();
    BOOST_TEST(starts_there.forward(trip, {.watching = watcher, .broker = broker}) == 2 * (trip + 1) + 1);
    std::vector<std::string> names;
    for (auto& f : facts)
      if (f.name != "machine")
        names.push_back(f.name + (f.node.empty() ? "" : " " + f.node));
    BOOST_TEST(names == (std::vector<std::string>{"ran a", "doubled", "ran b", "left", "ran c", "finished"}));
    for (auto& f : facts) {
      BOOST_TEST((f.on == here), f.name << " " << f.node << " is told on the caller's thread");
      if (f.name == "left")
        break;
    }
  }
  // A graph that is one trip ends on the caller's thread too.
  auto only_there = soma::graph::somatize(sys, Inc{}.named("a").at("w1"));
  facts.clear();
  BOOST_TEST(only_there.forward(41, {.watching = watcher, .broker = broker}) == 42);
  BOOST_REQUIRE(!facts.empty());
  BOOST_TEST(facts.back().name == "finished");
  for (auto& f : facts)
    BOOST_TEST((f.on == here), f.name << " " << f.node << " is told on the caller's thread");
  facts.clear();
  BOOST_TEST(starts_here.forward(5, {.watching = watcher, .broker = broker}) == 12);
  bool left = false;
  for (auto& f : facts)
    if (f.name == "left") {
      left = true;
      BOOST_TEST((f.on != here), "a trip from a local node is the slice actor's");
    }
  BOOST_TEST(left);
}

BOOST_AUTO_TEST_CASE(after_a_trip_with_a_large_value_the_next_goes_through_the_slice_actor_until_one_is_small) {
  // 64 KiB either way makes a trip large (slice.hpp, large_trip_bytes): the
  // trip after it is carried by the slice's actor, whose threads keep such
  // buffers; the trip after a small one goes from the caller again.
  auto w1 = serving(sys);
  auto broker = soma::broker::embedded({{"w1", w1}});
  auto g = soma::graph::somatize(sys, Tokenize{}.named("tokenize").at("w1") >> Embed{}.named("embed")
                                        >> Score{}.named("score"));
  std::string large;
  while (large.size() < 100 * 1024)
    large += "the quick brown fox ";
  auto here = std::this_thread::get_id();
  auto left_here = [&](const std::string& text) {
    std::optional<bool> on_caller;
    auto watcher = [&](const soma::fact& f) {
      if (f.name == "left")
        on_caller = std::this_thread::get_id() == here;
    };
    (void)g.forward(text, {.watching = watcher, .broker = broker});
    BOOST_REQUIRE(on_caller.has_value());
    return *on_caller;
  };
  BOOST_TEST(left_here("a b c"));  // small: from the caller
  BOOST_TEST(left_here(large));    // from the caller, who then knows it was large
  BOOST_TEST(!left_here(large));   // the slice actor's
  BOOST_TEST(!left_here("a b c")); // still the actor's: the last was large
  BOOST_TEST(left_here("a b c"));  // the caller's again
}

BOOST_AUTO_TEST_CASE(the_caller_that_took_a_workers_answer_runs_the_node_after_the_slice) {
  // The trip goes from the blocked caller and its answer comes back there;
  // the local node after the slice then runs on that thread too, with no
  // worker woken for it. With a deadline, it runs on the scheduler's.
  auto w1 = serving(sys);
  auto broker = soma::broker::embedded({{"w1", w1}});
  Here here;
  auto g = soma::graph::somatize(sys, Inc{}.named("a").at("w1") >> Here{here}.named("here"));
  auto me = std::this_thread::get_id();
  soma::forward_options o;
  o.broker = broker;
  // The node actor's start runs on a worker; a forward or two may find it
  // there. Then every forward's node runs here.
  std::size_t mine = 0;
  for (int i = 0; i < 200 && mine < 20; ++i) {
    BOOST_REQUIRE_EQUAL(g.forward(i, o), i + 101);
    mine = here.seen().back() == me ? mine + 1 : 0;
  }
  BOOST_TEST(mine == 20u, "20 forwards in a row did not run the node on their caller's thread");
  seen facts;
  o.watching = facts.watcher();
  BOOST_TEST(g.forward(7, o) == 108);
  BOOST_TEST(here.seen().back() == me);
  BOOST_TEST(facts.named("ran").size() == 2u);
  BOOST_TEST(facts.named("finished").size() == 1u);
  o.watching = {};
  o.deadline = std::chrono::seconds(20);
  auto before = here.seen().size();
  for (int i = 0; i < 5; ++i)
    BOOST_TEST(g.forward(i, o) == i + 101);
  auto all = here.seen();
  BOOST_REQUIRE_EQUAL(all.size(), before + 5);
  for (auto i = before; i < all.size(); ++i)
    BOOST_TEST((all[i] != me), "a forward with a deadline ran its node on the caller's thread");
}

BOOST_AUTO_TEST_CASE(an_actor_asking_a_graph_that_starts_at_a_worker_is_answered_in_flight_and_at_its_deadline) {
  // The graph's actor is its first slice's actor here: a forward asked of
  // it leaves for the worker from there. Many in flight all come back
  // right; one past its deadline is answered with that error, and the
  // graph's actor answers again after it.
  auto w1 = serving(sys);
  auto broker = soma::broker::embedded({{"w1", w1}});
  auto g = soma::graph::somatize(sys, Inc{}.named("a").at("w1") >> Twice{}.named("b"));
  // Its actor is the slice's, not a driver of its own.
  BOOST_TEST(std::string{static_cast<caf::local_actor*>(caf::actor_cast<caf::abstract_actor*>(g.actor()))->name()}
             == "soma.slice");
  caf::scoped_actor self{sys};
  soma::forward_options asked;
  asked.broker = broker;
  constexpr int n = 64;
  for (int i = 0; i < n; ++i)
    self->send(caf::actor_cast<caf::actor>(g.actor()), soma::forward_atom::value, i, asked);
  std::vector<int> got;
  for (int i = 0; i < n; ++i)
    self->receive([&](int x) { got.push_back(x); },
                  [&](caf::error& e) { BOOST_FAIL(soma::describe(e)); },
                  caf::after(std::chrono::seconds(20)) >> [&] { BOOST_FAIL("no answer within 20 s"); });
  std::sort(got.begin(), got.end());
  for (int i = 0; i < n; ++i)
    BOOST_TEST(got[i] == 2 * (i + 1));

  auto slow = soma::graph::somatize(sys, Sleepy{}.named("sleepy").at("w1") >> Inc{}.named("c"));
  soma::forward_options late = asked;
  late.deadline = std::chrono::milliseconds(300);
  auto began = std::chrono::steady_clock::now();
  std::string error;
  self->request(slow.actor(), std::chrono::seconds(20), soma::forward_atom::value, 2000, late)
    .receive([&](int) { BOOST_FAIL("a forward past its deadline gave a value"); },
             [&](caf::error& e) { error = soma::describe(e); });
  auto took = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - began);
  BOOST_TEST(error.find("the forward did not end within 300 ms (forward_options.deadline)") != std::string::npos,
             error);
  BOOST_TEST(took.count() < 1500, took.count() << " ms for a 300 ms deadline");
  int again = 0;
  self->request(slow.actor(), std::chrono::seconds(20), soma::forward_atom::value, 1, asked)
    .receive([&](int x) { again = x; }, [&](caf::error& e) { BOOST_FAIL(soma::describe(e)); });
  BOOST_TEST(again == 2);
}

BOOST_AUTO_TEST_CASE(a_fact_told_over_there_comes_back_as_it_would_be_stored) {
  // Text with a NUL byte crosses the wire as the store keeps it: byte for byte
  // (Cap'n Proto text cannot hold a NUL, so the value travels as bytes).
  auto w1 = serving(sys);
  auto broker = soma::broker::embedded({{"w1", w1}});
  auto g = soma::graph::somatize(sys, Says{}.named("says").at("w1"));
  seen s;
  BOOST_TEST(g.forward(7, {.watching = s.watcher(), .broker = broker}) == 7);
  BOOST_REQUIRE(s.named("said").size() == 1u);
  BOOST_TEST(s.named("said")[0]["text"] == std::string_view("a\0b", 3));
  BOOST_TEST(s.named("said")[0]["host"] == "w1");
}

BOOST_AUTO_TEST_CASE(many_forwards_in_flight_through_one_worker_all_come_back_right) {
  auto w1 = serving(sys);
  auto broker = soma::broker::embedded({{"w1", w1}});
  auto g = soma::graph::somatize(sys, Twice{}.named("b").at("w1") >> Inc{}.named("c"));
  std::vector<std::thread> threads;
  std::atomic<int> right{0};
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 50; ++i)
        if (g.forward(t * 1000 + i, {.broker = broker}) == 2 * (t * 1000 + i) + 1)
          ++right;
    });
  for (auto& t : threads)
    t.join();
  BOOST_TEST(right.load() == 200);
}

BOOST_AUTO_TEST_CASE(mode_network_ships_the_library_to_a_worker_that_accepts_code) {
  auto w1 = soma::worker::spawn(sys, {node_program, "--accept-code"}, soma::mode::network);
  auto broker = soma::broker::embedded({{"w1", w1}});
  auto g = soma::graph::somatize(sys, Tokenize{}.named("tokenize") >> Embed{}.named("embed").at("w1")
                                        >> Score{}.named("score"));
  seen s;
  BOOST_TEST(g.forward("the quick brown fox", {.watching = s.watcher(), .broker = broker}) == 2.0);
  BOOST_TEST(names(s.facts) == (std::vector<std::string>{"ran", "machine", "ran", "left", "ran", "finished"}), said(s.facts));
  seen again;
  BOOST_TEST(g.forward("the quick brown fox", {.watching = again.watcher(), .broker = broker}) == 2.0);
  BOOST_TEST(again.named("left").size() == 1u);
}

BOOST_AUTO_TEST_CASE(mode_network_is_refused_by_a_worker_without_accept_code) {
  try {
    auto w = soma::worker::spawn(sys, {node_program}, soma::mode::network);
    BOOST_FAIL("a worker without --accept-code took a network session");
  } catch (const soma::worker_error& e) {
    std::string what = e.what();
    BOOST_TEST(what.find("--accept-code") != std::string::npos, what);
    BOOST_TEST(what.find("refused the session") != std::string::npos, what);
  }
}

BOOST_AUTO_TEST_CASE(a_node_the_worker_does_not_have_is_an_error_naming_worker_and_node) {
  auto w1 = soma::worker::spawn(sys, {node_program}, soma::mode::project);
  auto broker = soma::broker::embedded({{"w1", w1}});
  auto g = soma::graph::somatize(sys, Inc{}.named("a").at("w1"));
  seen s;
  try {
    (void)g.forward(1, {.watching = s.watcher(), .broker = broker});
    BOOST_FAIL("a worker ran a node it does not have");
  } catch (const soma::forward_error& e) {
    std::string what = e.what();
    BOOST_TEST(e.node() == "a");
    BOOST_TEST(what.find("worker w1") != std::string::npos, what);
    BOOST_TEST(what.find("no node type Inc") != std::string::npos, what);
    BOOST_TEST(what.find("--nodes") != std::string::npos, what);
  }
  BOOST_TEST(names(s.facts) == (std::vector<std::string>{"machine", "left", "broke"}), said(s.facts));
  BOOST_TEST(s.facts[2]["host"] == "w1");
}

BOOST_AUTO_TEST_CASE(a_worker_with_another_build_of_the_library_is_refused_naming_both_hashes) {
  auto w1 = soma::worker::spawn(sys, {node_program, "--nodes", test_nodes_v2}, soma::mode::project);
  auto broker = soma::broker::embedded({{"w1", w1}});
  auto g = soma::graph::somatize(sys, Inc{}.named("a").at("w1"));
  auto ours = sha256_of(test_nodes);
  auto theirs = sha256_of(test_nodes_v2);
  BOOST_REQUIRE(ours != theirs);
  try {
    (void)g.forward(1, {.broker = broker});
    BOOST_FAIL("a worker ran another definition of Inc");
  } catch (const soma::forward_error& e) {
    std::string what = e.what();
    BOOST_TEST(what.find("worker w1") != std::string::npos, what);
    BOOST_TEST(what.find("Inc") != std::string::npos, what);
    BOOST_TEST(what.find(ours) != std::string::npos, what);
    BOOST_TEST(what.find(theirs) != std::string::npos, what);
  }
}

BOOST_AUTO_TEST_CASE(a_graph_draws_where_its_nodes_run_having_never_run) {
  auto g = soma::graph::somatize(sys, Tokenize{}.named("tokenize") >> Embed{}.named("embed").at("w1")
                                        >> Score{}.named("score"));
  auto svg = soma::draw::graph(g, "seed").svg();
  BOOST_TEST(svg == soma::draw::graph(g.declaration(), "seed").svg());
  BOOST_TEST(svg.find("at w1") != std::string::npos);
  BOOST_TEST(svg.find("tokenize") < svg.find("embed"));
  BOOST_TEST(svg.find("embed") < svg.find("score"));
}

BOOST_AUTO_TEST_CASE(two_builds_of_one_library_in_one_worker_each_run_their_own_code) {
  // The worker holds both builds; each client gets the one it was built with.
  auto w1 = soma::worker::spawn(sys, {node_program, "--nodes", test_nodes_v2, "--nodes", test_nodes});
  auto broker = soma::broker::embedded({{"w1", w1}});
  auto g = soma::graph::somatize(sys, Inc{}.named("a").at("w1"));
  BOOST_TEST(g.forward(1, {.broker = broker}) == 2); // v1: x + 1
  auto command = std::string{"SOMA_CLIENT_INC=1 "} + SOMA_REMOTE_CLIENT_V2 + " " + w1.address();
  auto* out = popen(command.c_str(), "r");
  BOOST_REQUIRE(out);
  char line[64] = {};
  BOOST_REQUIRE(std::fgets(line, sizeof line, out));
  pclose(out);
  BOOST_TEST(std::string{line} == "3\n"); // v2: x + 2, not v1's code under v2's name
  BOOST_TEST(g.forward(1, {.broker = broker}) == 2);
}

BOOST_AUTO_TEST_CASE(a_remote_node_without_a_node_library_is_refused_when_the_graph_is_made) {
  struct Local : soma::node<Local, int, int> {
    Out forward(const In& x, soma::context&) override { return x; }
  };
  BOOST_CHECK_EXCEPTION(
    (void)soma::graph::somatize(sys, Local{}.named("local").at("w1")), std::invalid_argument,
    [](const std::invalid_argument& e) {
      std::string what = e.what();
      return what.find("node 'local' runs at w1") != std::string::npos
             && what.find("soma_add_node_library") != std::string::npos;
    });
}

BOOST_AUTO_TEST_SUITE_END()
