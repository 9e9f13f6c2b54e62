#include <boost/test/unit_test.hpp>

#include <future>

#include <caf/event_based_actor.hpp>

#include "fixture.hpp"
#include "seed_nodes.hpp"
#include "soma/atoms.hpp"
#include "soma/error.hpp"
#include "soma/graph.hpp"

using namespace soma_test;

BOOST_FIXTURE_TEST_SUITE(actor_api, system_fixture)

BOOST_AUTO_TEST_CASE(an_actor_asks_for_a_forward_and_is_answered_without_blocking) {
  auto g = seed_graph(sys);
  std::promise<double> answer;
  auto facts = std::make_shared<collected>();
  auto watcher = spawn_collector(sys, facts);
  sys.spawn([&answer, graph = g.actor(), watcher](caf::event_based_actor* self) {
    self->request(graph, caf::infinite, soma::forward_atom::value, std::string{"the quick brown fox"},
                  soma::watching{watcher})
      .then([&answer](double v) { answer.set_value(v); },
            [&answer](caf::error& e) {
              answer.set_exception(std::make_exception_ptr(std::runtime_error(soma::describe(e))));
            });
  });
  auto fut = answer.get_future();
  BOOST_REQUIRE(fut.wait_for(deadline) == std::future_status::ready);
  BOOST_TEST(fut.get() == 2.0);
  BOOST_REQUIRE(facts->wait_for(4));
  std::vector<std::string> expected{"ran", "ran", "ran", "finished"};
  BOOST_TEST(names(facts->facts()) == expected, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(many_requests_in_flight_are_each_answered_with_their_own_value) {
  auto g = seed_graph(sys);
  constexpr int n = 2000;
  std::promise<int> done;
  auto correct = std::make_shared<int>(0);
  auto answered = std::make_shared<int>(0);
  sys.spawn([&done, graph = g.actor(), correct, answered](caf::event_based_actor* self) {
    for (int i = 1; i <= n; ++i) {
      // i words of length 2: the score is 1.0 whatever i is; word length i%7+1 varies it.
      std::string text;
      for (int w = 0; w < 3; ++w)
        text += std::string(static_cast<size_t>(i % 7 + 1), 'x') + " ";
      double expected = (i % 7 + 1) * 0.5;
      self->request(graph, caf::infinite, soma::forward_atom::value, text)
        .then([=, &done](double v) {
          *correct += v == expected;
          if (++*answered == n)
            done.set_value(*correct);
        });
    }
  });
  auto fut = done.get_future();
  BOOST_REQUIRE(fut.wait_for(deadline) == std::future_status::ready);
  BOOST_TEST(fut.get() == n);
}

BOOST_AUTO_TEST_CASE(a_failing_node_answers_an_error_naming_it) {
  auto g = seed_graph(sys);
  std::promise<std::pair<std::string, std::string>> answer;
  sys.spawn([&answer, graph = g.actor()](caf::event_based_actor* self) {
    self->request(graph, caf::infinite, soma::forward_atom::value, std::string{""})
      .then([&answer](double) { answer.set_value({"value", ""}); },
            [&answer](caf::error& e) { answer.set_value({soma::error_node(e), soma::describe(e)}); });
  });
  auto fut = answer.get_future();
  BOOST_REQUIRE(fut.wait_for(deadline) == std::future_status::ready);
  auto [node, text] = fut.get();
  BOOST_TEST(node == "score");
  BOOST_TEST(text == "node 'score' failed: nothing to score: the text had no words");
  // Rendered by the actor system too, since soma::system_config knows the category.
  BOOST_TEST(sys.render(soma::make_error(soma::error_code::node_failed, "x", "y")) == "node 'x' failed: y");
  // And the graph still answers the blocking way.
  BOOST_TEST(g.forward("ab ab") == 1.0);
}

BOOST_AUTO_TEST_SUITE_END()
