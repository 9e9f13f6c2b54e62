#include <boost/test/unit_test.hpp>

#include "fixture.hpp"
#include "seed_nodes.hpp"
#include "soma/forward_error.hpp"
#include "soma/graph.hpp"

using namespace soma_test;

BOOST_FIXTURE_TEST_SUITE(failure, system_fixture)

BOOST_AUTO_TEST_CASE(a_node_that_throws_says_failed_then_broke_and_the_caller_learns_which) {
  auto g = seed_graph(sys);
  std::vector<soma::fact> seen;
  try {
    g.forward("", {.watching = [&](const soma::fact& f) { seen.push_back(f); }});
    BOOST_FAIL("forward of an empty text returned");
  } catch (const soma::forward_error& e) {
    BOOST_TEST(e.node() == "score");
    BOOST_TEST(e.error() == "nothing to score: the text had no words");
    BOOST_TEST(std::string{e.what()} == "node 'score' failed: nothing to score: the text had no words");
  }
  std::vector<std::string> expected{"ran", "ran", "failed", "broke"};
  BOOST_TEST(names(seen) == expected, boost::test_tools::per_element());
  auto& failed = seen[2];
  BOOST_REQUIRE_EQUAL(failed.fields.size(), 4u);
  BOOST_TEST(failed.fields[0].key == "node");
  BOOST_TEST(failed["node"] == "score");
  BOOST_TEST(failed.fields[1].key == "error");
  BOOST_TEST(failed["error"] == "nothing to score: the text had no words");
  BOOST_TEST(failed.fields[2].key == "began_us");
  BOOST_TEST(failed.fields[3].key == "took_us");
  auto& broke = seen[3];
  BOOST_REQUIRE_EQUAL(broke.fields.size(), 3u);
  BOOST_TEST(broke.fields[0].key == "node");
  BOOST_TEST(broke["node"] == "score");
  BOOST_TEST(broke.fields[1].key == "error");
  BOOST_TEST(broke["error"] == failed["error"]);
  BOOST_TEST(broke.fields[2].key == "took_us");
  BOOST_TEST(num(broke, "took_us") >= num(failed, "began_us") + num(failed, "took_us"));

  // The graph stays usable.
  seen.clear();
  BOOST_TEST(g.forward("the quick brown fox", {.watching = [&](const soma::fact& f) { seen.push_back(f); }}) == 2.0);
  std::vector<std::string> again{"ran", "ran", "ran", "finished"};
  BOOST_TEST(names(seen) == again, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(the_first_node_failing_stops_the_rest) {
  struct Picky : soma::node<Picky, int, int> {
    Out forward(const In& x, soma::context&) override {
      if (x < 0)
        throw std::domain_error("negative input " + std::to_string(x));
      return x;
    }
  };
  struct Never : soma::node<Never, int, int> {
    int* calls;
    explicit Never(int* c) : calls(c) {}
    Out forward(const In& x, soma::context&) override {
      ++*calls;
      return x;
    }
  };
  int calls = 0;
  auto g = soma::graph::somatize(sys, Picky{}.named("picky") >> Never{&calls}.named("after"));
  std::vector<soma::fact> seen;
  BOOST_CHECK_EXCEPTION(g.forward(-3, {.watching = [&](const soma::fact& f) { seen.push_back(f); }}),
                        soma::forward_error, [](const soma::forward_error& e) {
                          return e.node() == "picky" && e.error() == "negative input -3";
                        });
  BOOST_TEST(calls == 0);
  std::vector<std::string> expected{"failed", "broke"};
  BOOST_TEST(names(seen) == expected, boost::test_tools::per_element());
  BOOST_TEST(g.forward(4) == 4);
  BOOST_TEST(calls == 1);
}

BOOST_AUTO_TEST_CASE(anything_thrown_is_described) {
  struct Odd : soma::node<Odd, int, int> {
    Out forward(const In& x, soma::context&) override {
      if (x == 1)
        throw 42;
      throw std::string{"a string thrown"};
    }
  };
  auto g = soma::graph::somatize(sys, Odd{}.named("odd"));
  BOOST_CHECK_EXCEPTION(g.forward(1), soma::forward_error, [](const soma::forward_error& e) {
    return e.node() == "odd" && e.error() == "an exception that is not a std::exception";
  });
  BOOST_CHECK_EXCEPTION(g.forward(2), soma::forward_error, [](const soma::forward_error& e) {
    return e.error() == "a string thrown";
  });
}

BOOST_AUTO_TEST_SUITE_END()
