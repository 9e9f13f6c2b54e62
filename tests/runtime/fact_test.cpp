#include <boost/test/unit_test.hpp>

#include <cmath>

#include "soma/fact.hpp"
#include "soma/vocabulary.hpp"

BOOST_AUTO_TEST_SUITE(fact)

BOOST_AUTO_TEST_CASE(fields_keep_their_order_and_numbers_read_back_exactly) {
  soma::fact f{"loss", {{"value", 2.1}, {"step", 7}, {"note", "warm"}}};
  BOOST_TEST(f.name == "loss");
  BOOST_REQUIRE_EQUAL(f.fields.size(), 3u);
  BOOST_TEST(f.fields[0].key == "value");
  BOOST_TEST(f.fields[1].key == "step");
  BOOST_TEST(f.fields[2].key == "note");
  // A number stays the number it was told, of its kind; text is made of it
  // only where a person reads it.
  BOOST_TEST(f["value"].is_real());
  BOOST_TEST(f["value"] == 2.1);
  BOOST_TEST(f["value"].number().value_or(0) == 2.1);
  BOOST_TEST(f["value"] != "2.1");
  BOOST_TEST(f["value"].str() == "2.1");
  BOOST_TEST(f["step"].is_integer());
  BOOST_TEST(f["step"].integer().value_or(0) == 7);
  BOOST_TEST(f["step"] != 7.0); // the integer 7 is not the real 7
  BOOST_TEST(f["note"].is_text());
  BOOST_TEST(f["note"] == "warm");
  BOOST_TEST(!f["note"].number().has_value());
  BOOST_TEST(f["missing"] == "");
  BOOST_TEST(!f.has("missing"));
  BOOST_TEST(soma::text(0.1 + 0.2) == "0.30000000000000004");
  BOOST_TEST(std::stod(soma::text(1.9600000000000002)) == 1.9600000000000002);
  BOOST_TEST(soma::text(-3) == "-3");
}

BOOST_AUTO_TEST_CASE(every_kind_of_number_makes_its_kind_of_scalar) {
  BOOST_TEST(soma::scalar{std::uint8_t{200}}.integer_or(-999) == 200);
  BOOST_TEST(soma::scalar{-5L}.integer_or(-999) == -5);
  BOOST_TEST(soma::scalar{2.5f}.is_real());
  BOOST_TEST(soma::scalar{18446744073709551615ull}.is_real()); // past int64
  BOOST_TEST(soma::scalar{9223372036854775807ull}.integer_or(-999) == 9223372036854775807LL);
  BOOST_TEST(soma::scalar{std::string_view{"x"}}.is_text());
  BOOST_TEST(soma::scalar{}.is_text());
  BOOST_TEST(soma::scalar{1e300}.str() == "1e+300");
  BOOST_TEST(soma::scalar{-0.0}.str() == "-0");
}

BOOST_AUTO_TEST_CASE(where_a_number_is_wanted_a_text_that_reads_as_one_counts) {
  BOOST_TEST(soma::read_number(soma::scalar{2.5}).value_or(0) == 2.5);
  BOOST_TEST(soma::read_number(soma::scalar{-3}).value_or(0) == -3.0);
  BOOST_TEST(soma::read_number(soma::scalar{"1e5"}).value_or(0) == 1e5);
  BOOST_TEST(std::isnan(soma::read_number(soma::scalar{"nan"}).value_or(0)));
  for (auto t : {"", "warm", "1.5x", " 1"})
    BOOST_TEST(!soma::read_number(soma::scalar{t}).has_value(), t);
}

BOOST_AUTO_TEST_CASE(json_puts_the_name_first_then_fields_in_order) {
  soma::fact f{"ran", {{"node", "tokenize"}, {"began_us", 8}, {"took_us", 318}}};
  BOOST_TEST(soma::to_json(f)
             == R"({"fact":"ran","node":"tokenize","began_us":"8","took_us":"318"})");
}

BOOST_AUTO_TEST_CASE(json_escapes_what_json_must_escape) {
  soma::fact f{"note", {{"text", "a \"quoted\"\\path\nnext\tcol\x01"}}};
  BOOST_TEST(soma::to_json(f)
             == R"({"fact":"note","text":"a \"quoted\"\\path\nnext\tcol\u0001"})");
}

BOOST_AUTO_TEST_CASE(the_vocabulary_is_closed) {
  for (auto w : {"ran", "failed", "recalled", "kept", "items", "left", "finished", "broke",
                 "machine"})
    BOOST_TEST(soma::vocabulary::is_engine_word(w));
  BOOST_TEST(!soma::vocabulary::is_engine_word("loss"));
  BOOST_TEST(!soma::vocabulary::is_engine_word("Ran"));
  BOOST_TEST(!soma::vocabulary::is_engine_word(""));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(fact_json)

// What to_json writes is always valid JSON: text that is not UTF-8 becomes
// U+FFFD, one for each byte that starts no well-formed sequence; UTF-8 that
// is well formed passes as it is.
BOOST_AUTO_TEST_CASE(text_that_is_not_utf8_is_written_as_replacement_characters) {
  soma::fact x{"said", {{"ok", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"},
                        {"bad", std::string{"a\xff" "b\xc3" "c\xe0\x80\xaf" "d\xed\xa0\x80" "e\xf4\x90\x80\x80"}},
                        {"cut", std::string{"\xe2\x82"}}}};
  BOOST_TEST(soma::to_json(x)
             == "{\"fact\":\"said\",\"ok\":\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\","
                "\"bad\":\"a\\ufffdb\\ufffdc\\ufffd\\ufffd\\ufffdd\\ufffd\\ufffd\\ufffde\\ufffd\\ufffd\\ufffd\\ufffd\","
                "\"cut\":\"\\ufffd\\ufffd\"}");
}

BOOST_AUTO_TEST_SUITE_END()
