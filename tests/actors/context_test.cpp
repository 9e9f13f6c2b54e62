#include <boost/test/unit_test.hpp>

#include "fixture.hpp"
#include "soma/forward_error.hpp"
#include "soma/graph.hpp"

using namespace soma_test;

namespace {

// Walks a collection, saying how far it is, and tells a fact of its own.
struct Walk : soma::node<Walk, std::vector<int>, int> {
  Out forward(const In& xs, soma::context& ctx) override {
    int sum = 0;
    for (size_t i = 0; i < xs.size(); ++i) {
      sum += xs[i];
      ctx.items(i + 1, xs.size());
    }
    ctx.tell(soma::fact{"sum", {{"value", sum}, {"node", ctx.node()}}});
    return sum;
  }
};

struct Say : soma::node<Say, int, int> {
  std::string word;
  explicit Say(std::string w) : word(std::move(w)) {}
  Out forward(const In& x, soma::context& ctx) override {
    ctx.tell(soma::fact{word, {{"x", x}}});
    return x;
  }
};

} // namespace

BOOST_FIXTURE_TEST_SUITE(context, system_fixture)

BOOST_AUTO_TEST_CASE(a_node_says_items_and_its_own_facts_in_order_with_the_engines) {
  auto g = soma::graph::somatize(sys, Walk{}.named("walk") >> Say{"said"}.named("say"));
  std::vector<soma::fact> seen;
  BOOST_TEST(g.forward({1, 2, 3}, {.watching = [&](const soma::fact& f) { seen.push_back(f); }}) == 6);
  std::vector<std::string> expected{"items", "items", "items", "sum", "ran", "said", "ran", "finished"};
  BOOST_TEST(names(seen) == expected, boost::test_tools::per_element());
  BOOST_TEST(soma::to_json(seen[0]) == R"({"fact":"items","node":"walk","done":"1","of":"3"})");
  BOOST_TEST(soma::to_json(seen[2]) == R"({"fact":"items","node":"walk","done":"3","of":"3"})");
  BOOST_TEST(soma::to_json(seen[3]) == R"({"fact":"sum","value":"6","node":"walk"})");
  BOOST_TEST(seen[4]["node"] == "walk");
  BOOST_TEST(soma::to_json(seen[5]) == R"({"fact":"said","x":"6"})");
}

BOOST_AUTO_TEST_CASE(the_engines_words_are_the_engines_alone) {
  for (auto word : {"ran", "broke", "machine", ""}) {
    auto g = soma::graph::somatize(sys, Say{word}.named("liar"));
    std::vector<soma::fact> seen;
    try {
      g.forward(1, {.watching = [&](const soma::fact& f) { seen.push_back(f); }});
      BOOST_FAIL("a node said '" << word << "'");
    } catch (const soma::forward_error& e) {
      BOOST_TEST(e.node() == "liar");
      if (*word)
        BOOST_TEST(e.error() == "node 'liar' told a fact named '" + std::string{word}
                                  + "', which is one of the engine's words; give your "
                                    "fact a name of its own");
      else
        BOOST_TEST(e.error().find("a fact with no name") != std::string::npos);
    }
    std::vector<std::string> expected{"failed", "broke"};
    BOOST_TEST(names(seen) == expected, boost::test_tools::per_element());
  }
}

BOOST_AUTO_TEST_CASE(a_field_named_fact_is_refused) {
  struct Clash : soma::node<Clash, int, int> {
    Out forward(const In& x, soma::context& ctx) override {
      ctx.tell(soma::fact{"mine", {{"fact", "x"}}});
      return x;
    }
  };
  auto g = soma::graph::somatize(sys, Clash{}.named("clash"));
  BOOST_CHECK_EXCEPTION(g.forward(1), soma::forward_error, [](const soma::forward_error& e) {
    return e.error().find("a field named 'fact'") != std::string::npos;
  });
}

BOOST_AUTO_TEST_SUITE_END()
