#include <boost/test/unit_test.hpp>

#include <algorithm>

#include "soma/store/keys.hpp"

BOOST_AUTO_TEST_SUITE(keys)

BOOST_AUTO_TEST_CASE(record_keys_sort_numerically_past_10_100_1000) {
  std::vector<std::string> ks;
  for (std::uint64_t n : {1000u, 9u, 10u, 99u, 100u, 0u, 1u, 999u, 65536u})
    ks.push_back(soma::detail::record_key("tuesday", n));
  std::sort(ks.begin(), ks.end());
  std::vector<std::uint64_t> order;
  for (auto& k : ks) {
    std::string_view run;
    std::uint64_t n = 0;
    BOOST_REQUIRE(soma::detail::parse_record_key(k, run, n));
    BOOST_TEST(run == "tuesday");
    order.push_back(n);
  }
  std::vector<std::uint64_t> expected{0, 1, 9, 10, 99, 100, 999, 1000, 65536};
  BOOST_TEST(order == expected, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_run_is_a_prefix_no_other_run_shares) {
  // "a" must not match "a-b" or "ab": the prefix ends with '/'.
  auto a = soma::detail::record_key("a", 5);
  auto ab = soma::detail::record_key("ab", 5);
  BOOST_TEST(a.starts_with(soma::detail::run_prefix("a")));
  BOOST_TEST(!ab.starts_with(soma::detail::run_prefix("a")));
}

namespace {

// What check_run_id says of `run`: nothing, or its error's sentence (an
// error_code::invalid one).
std::string why_not(std::string_view run) {
  auto ok = soma::check_run_id(run);
  if (ok)
    return {};
  BOOST_TEST(ok.error().code() == static_cast<std::uint8_t>(soma::error_code::invalid));
  return soma::describe(ok.error());
}

} // namespace

BOOST_AUTO_TEST_CASE(what_cannot_be_a_run_id_is_said) {
  BOOST_TEST(static_cast<bool>(soma::check_run_id("tuesday")));
  BOOST_TEST(why_not("run 7 (lr=0.1)").empty());
  BOOST_TEST(why_not("") == "a run id cannot be empty: give the run a name, such as tuesday");
  BOOST_TEST(why_not("a/b").find("contains '/'") != std::string::npos);
  BOOST_TEST(why_not("tab\there").find("control character (byte 9)") != std::string::npos);
  // UTF-8 text is a run id; other bytes are not (no JSON could name them).
  BOOST_TEST(why_not("\xc3\xa9t\xc3\xa9 \xe2\x86\x92 lr").empty());
  BOOST_TEST(why_not("ab\xff") == "the run id is not UTF-8 text (byte 255 at 2), so no JSON "
                                  "or page could name it; name runs with text");
  BOOST_TEST(why_not("\xc3(").find("not UTF-8 text (byte 195 at 0)") != std::string::npos);
  BOOST_TEST(why_not(std::string(soma::max_run_id, 'x')).empty());
  BOOST_TEST(why_not(std::string(soma::max_run_id + 1, 'x')).find("at most 498 bytes") != std::string::npos);
  // The longest run id still makes a key LMDB takes (511 bytes at most).
  BOOST_TEST(soma::detail::record_key(std::string(soma::max_run_id, 'x'), 1).size() <= 511u);
}

BOOST_AUTO_TEST_SUITE_END()
