#include <boost/test/unit_test.hpp>

#include "soma/store/record.hpp"
#include "soma/store/store.hpp"

BOOST_AUTO_TEST_SUITE(record)

BOOST_AUTO_TEST_CASE(every_field_of_a_record_round_trips) {
  soma::record r;
  r.forward = 123456789012ull;
  r.state = soma::outcome::broke;
  r.nodes = 7;
  r.took_us = -5; // nothing in the codec assumes a sign
  r.when = 1787686120;
  r.summary = {{"loss.value", "1.9600000000000002"}, {"acc.top1", "0.5"}};
  auto bytes = soma::detail::encode_record(r);
  BOOST_TEST(bytes.size() % 8 == 0u);
  BOOST_TEST((soma::detail::decode_record(bytes, {"test"}) == r));
  for (auto s : {soma::outcome::ok, soma::outcome::broke, soma::outcome::open}) {
    r.state = s;
    BOOST_TEST(soma::detail::decode_record(soma::detail::encode_record(r), {"test"}).state == s);
  }
}

BOOST_AUTO_TEST_CASE(facts_round_trip_in_order_with_every_byte) {
  std::vector<soma::fact> facts{
    {"ran", {{"node", "tokenize"}, {"began_us", 8}, {"took_us", 318}}},
    {"note", {{"text", std::string("a\0b\n\"c\"", 7)}, {"", ""}}},
    {"finished", {{"took_us", 933}}},
    {"empty", {}},
  };
  auto bytes = soma::detail::encode_facts(facts);
  auto back = soma::detail::decode_facts(bytes, {"test"});
  // Text cannot hold NUL: it comes back as U+FFFD, and nothing after it is lost.
  facts[1].fields[0].value = "a\xEF\xBF\xBD" "b\n\"c\"";
  BOOST_TEST(back == facts);
  BOOST_TEST(soma::detail::decode_facts(soma::detail::encode_facts({}), {"test"}).empty());
}

BOOST_AUTO_TEST_CASE(unaligned_bytes_decode) {
  soma::record r;
  r.forward = 3;
  auto bytes = soma::detail::encode_record(r);
  std::string shifted = "x" + bytes; // LMDB hands values out on 2-byte boundaries
  BOOST_TEST((soma::detail::decode_record(std::string_view{shifted}.substr(1), {"test"}) == r));
}

BOOST_AUTO_TEST_CASE(damaged_bytes_are_a_clear_error_never_a_crash) {
  std::vector<soma::fact> facts{{"ran", {{"node", "a"}, {"took_us", 1}}}};
  auto good = soma::detail::encode_facts(facts);
  auto expect_damaged = [](std::string_view bytes) {
    try {
      (void) soma::detail::decode_facts(bytes, {"the fact blob", "x", 3});
      return false;
    } catch (const soma::store_error& e) {
      return std::string{e.what()}.starts_with("the fact blob of forward 3 of run 'x' is damaged");
    }
  };
  BOOST_TEST(expect_damaged(good.substr(0, good.size() - 3)));   // not whole words
  BOOST_TEST(expect_damaged(good.substr(0, 8)));                 // truncated message
  BOOST_TEST(expect_damaged(""));
  BOOST_TEST(expect_damaged(std::string(64, '\xff')));           // garbage
  // Every single-byte overwrite either decodes or fails cleanly.
  for (size_t i = 0; i < good.size(); ++i) {
    auto bad = good;
    bad[i] = static_cast<char>(~bad[i]);
    try {
      (void) soma::detail::decode_facts(bad, {"x"});
    } catch (const soma::store_error&) {
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
