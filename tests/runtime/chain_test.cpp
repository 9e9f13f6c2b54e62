#include <boost/test/unit_test.hpp>

#include <memory>
#include <string>
#include <type_traits>

#include "seed_nodes.hpp"
#include "soma/chain.hpp"

BOOST_AUTO_TEST_SUITE(chain)

BOOST_AUTO_TEST_CASE(composition_is_typed_from_first_in_to_last_out) {
  auto c = Tokenize{}.named("tokenize") >> Embed{}.named("embed") >> Score{}.named("score");
  using C = decltype(c);
  static_assert(std::is_same_v<C, soma::chain<Tokenize, Embed, Score>>);
  static_assert(std::is_same_v<C::In, std::string>);
  static_assert(std::is_same_v<C::Out, double>);
  BOOST_TEST(C::size == 3u);
  BOOST_TEST(std::get<0>(c.nodes())->name() == "tokenize");
  BOOST_TEST(std::get<2>(c.nodes())->name() == "score");
}

BOOST_AUTO_TEST_CASE(a_node_unnamed_is_called_after_its_type) {
  Tokenize t;
  BOOST_TEST(t.name() == "Tokenize");
  t.named("words");
  BOOST_TEST(t.name() == "words");
  BOOST_TEST(t.config().name == "words");
}

BOOST_AUTO_TEST_CASE(grouping_does_not_change_the_chain) {
  auto right = Tokenize{}.named("t") >> (Embed{}.named("e") >> Score{}.named("s"));
  static_assert(std::is_same_v<decltype(right), soma::chain<Tokenize, Embed, Score>>);
  BOOST_TEST(std::get<1>(right.nodes())->name() == "e");
}

BOOST_AUTO_TEST_CASE(an_lvalue_node_is_copied_and_keeps_its_name) {
  Embed e;
  e.named("embed");
  auto c = Tokenize{} >> e;
  BOOST_TEST(std::get<1>(c.nodes())->name() == "embed");
  BOOST_TEST(e.name() == "embed");
}

BOOST_AUTO_TEST_SUITE_END()
