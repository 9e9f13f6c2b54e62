#include <boost/test/unit_test.hpp>

#include "fixture.hpp"
#include "seed_nodes.hpp"
#include "soma/graph.hpp"

using namespace soma_test;

BOOST_FIXTURE_TEST_SUITE(graph, system_fixture)

BOOST_AUTO_TEST_CASE(forward_returns_the_value) {
  auto g = seed_graph(sys);
  BOOST_TEST(g.forward("the quick brown fox") == 2.0);
  BOOST_TEST(g.forward("a bb ccc") == 1.0);
}

BOOST_AUTO_TEST_CASE(facts_come_in_the_order_things_happened_with_the_seeds_fields) {
  auto g = seed_graph(sys);
  std::vector<soma::fact> seen;
  g.forward("the quick brown fox", {.watching = [&](const soma::fact& f) { seen.push_back(f); }});
  BOOST_REQUIRE_EQUAL(seen.size(), 4u);
  std::vector<std::string> expected_names{"ran", "ran", "ran", "finished"};
  BOOST_TEST(names(seen) == expected_names, boost::test_tools::per_element());
  const char* nodes[] = {"tokenize", "embed", "score"};
  for (int i = 0; i < 3; ++i) {
    BOOST_REQUIRE_EQUAL(seen[i].fields.size(), 3u);
    BOOST_TEST(seen[i].fields[0].key == "node");
    BOOST_TEST(seen[i].fields[0].value == nodes[i]);
    BOOST_TEST(seen[i].fields[1].key == "began_us");
    BOOST_TEST(seen[i].fields[2].key == "took_us");
  }
  BOOST_REQUIRE_EQUAL(seen[3].fields.size(), 1u);
  BOOST_TEST(seen[3].fields[0].key == "took_us");
}

BOOST_AUTO_TEST_CASE(each_node_begins_after_the_previous_ended) {
  auto g = seed_graph(sys);
  for (int round = 0; round < 50; ++round) {
    std::vector<soma::fact> seen;
    g.forward("the quick brown fox jumps", {.watching = [&](const soma::fact& f) { seen.push_back(f); }});
    BOOST_REQUIRE_EQUAL(seen.size(), 4u);
    long long sum = 0;
    for (int i = 0; i < 3; ++i) {
      BOOST_TEST(num(seen[i], "began_us") >= 0);
      BOOST_TEST(num(seen[i], "took_us") >= 0);
      sum += num(seen[i], "took_us");
      if (i > 0)
        BOOST_TEST(num(seen[i], "began_us")
                   >= num(seen[i - 1], "began_us") + num(seen[i - 1], "took_us"));
    }
    auto finished = num(seen[3], "took_us");
    BOOST_TEST(finished >= sum);
    BOOST_TEST(finished >= num(seen[2], "began_us") + num(seen[2], "took_us"));
  }
}

BOOST_AUTO_TEST_CASE(a_slow_node_shows_in_its_own_time_and_no_other) {
  struct Slow : soma::node<Slow, int, int> {
    Out forward(const In& x, soma::context&) override {
      std::this_thread::sleep_for(20ms);
      return x + 1;
    }
  };
  struct Quick : soma::node<Quick, int, int> {
    Out forward(const In& x, soma::context&) override { return x * 2; }
  };
  auto g = soma::graph::somatize(sys, Quick{}.named("q") >> Slow{}.named("slow") >> Quick{}.named("q2"));
  std::vector<soma::fact> seen;
  BOOST_TEST(g.forward(3, {.watching = [&](const soma::fact& f) { seen.push_back(f); }}) == 14);
  BOOST_REQUIRE_EQUAL(seen.size(), 4u);
  BOOST_TEST(num(seen[1], "took_us") >= 20000);
  BOOST_TEST(num(seen[0], "took_us") < 20000);
  BOOST_TEST(num(seen[2], "began_us") >= 20000);
  BOOST_TEST(num(seen[3], "took_us") >= 20000);
}

BOOST_AUTO_TEST_CASE(a_single_node_is_a_graph) {
  auto g = soma::graph::somatize(sys, Tokenize{}.named("tokenize"));
  std::vector<soma::fact> seen;
  auto v = g.forward("to be or", {.watching = [&](const soma::fact& f) { seen.push_back(f); }});
  BOOST_TEST((v == std::vector<double>{2, 2, 2}));
  std::vector<std::string> expected{"ran", "finished"};
  BOOST_TEST(names(seen) == expected, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(the_declaration_lists_nodes_in_order_before_anything_ran) {
  auto g = seed_graph(sys);
  auto& d = g.declaration();
  BOOST_REQUIRE_EQUAL(d.size(), 3u);
  BOOST_TEST(d[0].name == "tokenize");
  BOOST_TEST(d[0].type == "Tokenize");
  BOOST_TEST(d[1].name == "embed");
  BOOST_TEST(d[2].name == "score");
  BOOST_TEST(d[2].type == "Score");
}

BOOST_AUTO_TEST_CASE(two_nodes_with_one_name_are_refused) {
  try {
    auto g = soma::graph::somatize(sys, Embed{}.named("x") >> Embed{}.named("x"));
    BOOST_FAIL("a graph with two nodes named 'x' was made");
  } catch (const std::invalid_argument& e) {
    BOOST_TEST(std::string{e.what()}.find("two nodes of this graph are named 'x'") != std::string::npos);
  }
  // Unnamed nodes of one type clash too: both would be called "Embed".
  BOOST_CHECK_THROW(soma::graph::somatize(sys, Embed{} >> Embed{}), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(a_node_keeps_its_state_between_forwards) {
  struct Counter : soma::node<Counter, int, int> {
    int calls = 0;
    Out forward(const In& x, soma::context&) override { return x + ++calls; }
  };
  auto g = soma::graph::somatize(sys, Counter{}.named("counter"));
  BOOST_TEST(g.forward(0) == 1);
  BOOST_TEST(g.forward(0) == 2);
  BOOST_TEST(g.forward(10) == 13);
}

BOOST_AUTO_TEST_CASE(a_copy_of_a_graph_shares_its_actors) {
  struct Counter : soma::node<Counter, int, int> {
    int calls = 0;
    Out forward(const In& x, soma::context&) override { return x + ++calls; }
  };
  auto g = soma::graph::somatize(sys, Counter{}.named("counter"));
  auto h = g;
  BOOST_TEST(g.forward(0) == 1);
  BOOST_TEST(h.forward(0) == 2);
}

BOOST_AUTO_TEST_SUITE_END()
