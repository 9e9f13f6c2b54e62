#include <boost/test/unit_test.hpp>

#include "soma/detail/seal.hpp"
#include "soma/store/keys.hpp"
#include "soma/store/record.hpp"
#include "soma/store/store.hpp"

namespace {

const std::string key = soma::detail::record_key("test", 3);

// Whether decoding throws a store_error whose text starts with `start`, of
// the kind that text says: `damaged` for damage, `failed` for a newer format
// (which is no damage: that soma reads it).
template <class F>
bool refused(F&& decode, std::string_view start) {
  auto kind = start.find("is damaged") != std::string_view::npos ? soma::store_trouble::damaged
                                                                 : soma::store_trouble::failed;
  try {
    (void) decode();
    return false;
  } catch (const soma::store_error& e) {
    if (!std::string_view{e.what()}.starts_with(start)) {
      BOOST_TEST_MESSAGE("unexpected message: " << e.what());
      return false;
    }
    if (e.trouble() != kind) {
      BOOST_TEST_MESSAGE("'" << e.what() << "' is " << to_string(e.trouble()) << ", not "
                             << to_string(kind));
      return false;
    }
    return true;
  }
}

} // namespace

BOOST_AUTO_TEST_SUITE(record)

BOOST_AUTO_TEST_CASE(every_field_of_a_record_round_trips) {
  soma::record r;
  r.forward = 123456789012ull;
  r.state = soma::outcome::broke;
  r.nodes = 7;
  r.took_us = -5; // nothing in the codec assumes a sign
  r.when = 1787686120;
  r.summary = {{"loss.value", "1.9600000000000002"}, {"acc.top1", "0.5"}};
  auto bytes = soma::detail::encode_record(r, key);
  BOOST_TEST((soma::detail::decode_record(key, bytes, {"test"}) == r));
  for (auto s : {soma::outcome::ok, soma::outcome::broke, soma::outcome::open}) {
    r.state = s;
    BOOST_TEST(soma::detail::decode_record(key, soma::detail::encode_record(r, key), {"test"}).state
               == s);
  }
}

BOOST_AUTO_TEST_CASE(facts_round_trip_in_order_with_every_byte) {
  std::vector<soma::fact> facts{
    {"ran", {{"node", "tokenize"}, {"began_us", 8}, {"took_us", 318}}},
    {"note", {{"text", std::string("a\0b\n\"c\"", 7)}, {"", ""}}},
    {"finished", {{"took_us", 933}}},
    {"empty", {}},
  };
  auto bytes = soma::detail::encode_facts(facts, key);
  BOOST_TEST((soma::detail::decode_facts(key, bytes, {"test"}) == facts));
  BOOST_TEST(soma::detail::decode_facts(key, soma::detail::encode_facts({}, key), {"test"}).empty());
}

BOOST_AUTO_TEST_CASE(texts_that_look_like_numbers_come_back_byte_for_byte) {
  // Numbers are kept as numbers only when the text is exactly how soma
  // writes that number; every other text is kept as text.
  std::vector<std::string> texts{"0",    "-1",    "007",  "-0",   "+3",   "1.0",  "0.1",
                                 "2.1",  "1e5",   "1e+05", "1.5e-07", "nan", "inf", "-inf",
                                 "9223372036854775807", "-9223372036854775808",
                                 "9223372036854775808", "1.9600000000000002", "0x10", " 1",
                                 "1 ", "", "ran", "value", "tokenize", ".", "e", "-"};
  std::vector<soma::fact> facts;
  for (auto& t : texts)
    facts.push_back(soma::fact{t, {{t, t}}});
  auto back = soma::detail::decode_facts(key, soma::detail::encode_facts(facts, key), {"test"});
  BOOST_TEST((back == facts));
}

BOOST_AUTO_TEST_CASE(a_forward_of_the_seed_is_compact) {
  // Five facts as the seed's graph and a loss make them: far below the 600
  // bytes of format 1.
  std::vector<soma::fact> facts{
    {"ran", {{"node", "tokenize"}, {"began_us", 70}, {"took_us", 3}}},
    {"ran", {{"node", "embed"}, {"began_us", 79}, {"took_us", 0}}},
    {"ran", {{"node", "score"}, {"began_us", 210}, {"took_us", 0}}},
    {"finished", {{"took_us", 212}}},
    {"loss", {{"value", "1.7087140000000003"}}},
  };
  auto bytes = soma::detail::encode_facts(facts, key);
  BOOST_TEST(bytes.size() < 100u);
  soma::record r{3, soma::outcome::ok, 3, 212, 1796131251, {{"loss.value", "1.7087140000000003"}}};
  BOOST_TEST(soma::detail::encode_record(r, key).size() < 40u);
}

BOOST_AUTO_TEST_CASE(every_changed_byte_is_seen_as_damage) {
  std::vector<soma::fact> facts{{"ran", {{"node", "a"}, {"took_us", 1}}}, {"loss", {{"value", 0.5}}}};
  auto good = soma::detail::encode_facts(facts, key);
  soma::detail::origin where{"the fact blob", "test", 3, "/tmp/s"};
  const char* start = "the fact blob of forward 3 of run 'test' in the store '/tmp/s' is damaged";
  for (std::size_t i = 0; i < good.size(); ++i)
    for (unsigned bit = 0; bit < 8; ++bit) {
      auto bad = good;
      bad[i] = static_cast<char>(bad[i] ^ (1u << bit));
      BOOST_TEST(refused([&] { return soma::detail::decode_facts(key, bad, where); }, start),
                 "byte " << i << " bit " << bit);
    }
  // Cut short, or moved to another key, or a record's bytes read as a blob.
  for (std::size_t n = 0; n < good.size(); ++n)
    BOOST_TEST(refused([&] { return soma::detail::decode_facts(key, good.substr(0, n), where); },
                       start),
               "cut to " << n);
  auto other = soma::detail::record_key("test", 4);
  BOOST_TEST(refused([&] { return soma::detail::decode_facts(other, good, where); }, start));
  auto record = soma::detail::encode_record(soma::record{}, key);
  BOOST_TEST(refused([&] { return soma::detail::decode_facts(key, record, where); }, start));
  // The message says what to do.
  try {
    auto bad = good;
    bad.back() ^= 1;
    (void) soma::detail::decode_facts(key, bad, where);
  } catch (const soma::store_error& e) {
    BOOST_TEST(std::string{e.what()}.find("soma check --store /tmp/s") != std::string::npos);
  }
}

BOOST_AUTO_TEST_CASE(a_newer_format_is_refused_as_newer_not_damaged) {
  auto bytes = soma::detail::encode_record(soma::record{}, key);
  bytes[2] = static_cast<char>(soma::detail::format_version + 1);
  soma::detail::seal(bytes, key); // a newer soma's, whole
  BOOST_TEST(refused([&] { return soma::detail::decode_record(key, bytes, {"the record"}); },
                     "the record was written by a newer soma (format 3)"));
  bytes[3] ^= 1; // and damaged: damage is said first
  BOOST_TEST(refused([&] { return soma::detail::decode_record(key, bytes, {"the record"}); },
                     "the record is damaged"));
  bytes[3] ^= 1;
  BOOST_TEST(refused([&] { return soma::detail::decode_record(key, bytes, {"the record"}); },
                     "the record was written by a newer soma (format 3)"));
}

BOOST_AUTO_TEST_CASE(a_summary_field_reads_without_decoding_the_record) {
  soma::record r{3, soma::outcome::ok, 3, 212, 1796131251,
                 {{"loss.value", "1.7087140000000003"}, {"step.n", "-12"}, {"note.text", "1.50"}}};
  auto bytes = soma::detail::encode_record(r, key);
  auto loss = soma::detail::summary_field(key, bytes, {"the record"}, "loss.value");
  BOOST_TEST_REQUIRE(loss.has_value());
  BOOST_TEST(loss->number.value_or(0) == 1.7087140000000003);
  BOOST_TEST(soma::detail::summary_field(key, bytes, {"the record"}, "step.n")->number.value_or(0)
             == -12.0);
  auto note = soma::detail::summary_field(key, bytes, {"the record"}, "note.text");
  BOOST_TEST(!note->number.has_value()); // "1.50" is not how soma writes 1.5: kept as text
  BOOST_TEST(note->text == "1.50");
  BOOST_TEST(!soma::detail::summary_field(key, bytes, {"the record"}, "acc.value").has_value());
  bytes[10] ^= 4;
  BOOST_TEST(refused([&] { return soma::detail::summary_field(key, bytes, {"the record"}, "loss.value"); },
                     "the record is damaged"));
}

BOOST_AUTO_TEST_CASE(run_metadata_round_trips_with_its_count) {
  auto meta_key = soma::detail::meta_key("test");
  soma::detail::run_meta m{{"loss", "acc"}, 12};
  auto back = soma::detail::decode_run_meta(meta_key, soma::detail::encode_run_meta(m, meta_key),
                                            {"meta"});
  BOOST_TEST((back.summarising == m.summarising));
  BOOST_TEST(back.next.value_or(0) == 12u);
  m.next = std::nullopt;
  BOOST_TEST(!soma::detail::decode_run_meta(meta_key, soma::detail::encode_run_meta(m, meta_key),
                                            {"meta"})
                .next.has_value());
}

BOOST_AUTO_TEST_SUITE_END()
