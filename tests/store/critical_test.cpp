// The arithmetic of soma/store/critical.hpp on forwards whose every stamp is
// known: the offset and bound NTP's formula gives, the segments of a trip,
// a wait in the mailbox past the host's quickest wire out, parallel nodes
// off the path, and a gap where the client waited. (tests/remote's
// critical_test does the same with real workers, a shifted clock and a slow
// wire.)

#include <boost/test/unit_test.hpp>

#include <map>
#include <string>
#include <vector>

#include "scratch.hpp"
#include "soma/store/critical.hpp"
#include "writing.hpp"

namespace {

using kind = soma::segment_kind;
constexpr std::int64_t theta = 5'000'000;            // the worker's clock: 5 s ahead
constexpr std::int64_t sent = 1'800'000'000'000'000; // unix µs

soma::fact ran(const std::string& node, std::int64_t began, std::int64_t took, const char* host = nullptr) {
  soma::fact f{"ran", {{"node", node}, {"began_us", began}, {"took_us", took}}};
  if (host)
    f.fields.emplace_back("host", host);
  return f;
}

// A trip to w1 leaving at `began`: `out` µs on the wire, `mailbox` µs
// waiting there, held 1,100 µs (embed from 50 to 1,050), `back` µs back.
std::vector<soma::fact> trip(std::int64_t began, std::int64_t out, std::int64_t mailbox, std::int64_t back) {
  auto took = out + mailbox + 1100 + back;
  return {ran("embed", 50, 1000, "w1"),
          soma::fact{"left",
                     {{"host", "w1"}, {"began_us", began}, {"took_us", took}, {"sent_us", sent + began},
                      {"taken_us", sent + began + out + mailbox + theta}, {"held_us", 1100}}}};
}

// tok here, a trip to w1, score here.
std::vector<soma::fact> forward(std::int64_t mailbox) {
  std::vector<soma::fact> f{ran("tok", 0, 200)};
  for (auto& x : trip(200, 300, mailbox, 100))
    f.push_back(x);
  f.push_back(ran("score", 1700 + mailbox, 100));
  f.push_back(soma::fact{"finished", {{"took_us", 1800 + mailbox}}});
  return f;
}

soma::record record_of(std::uint64_t n, std::int64_t took) {
  soma::record r;
  r.forward = n;
  r.took_us = took;
  return r;
}

std::vector<std::pair<std::string, std::int64_t>> steps(const std::vector<soma::segment>& path) {
  std::vector<std::pair<std::string, std::int64_t>> out;
  for (auto& s : path)
    out.emplace_back(std::string{to_string(s.kind)} + " " + s.host + (s.node.empty() ? "" : " " + s.node),
                     s.took_us);
  return out;
}

using steps_t = std::vector<std::pair<std::string, std::int64_t>>;

} // namespace

BOOST_AUTO_TEST_SUITE(critical)

BOOST_AUTO_TEST_CASE(the_offset_is_ntps_and_within_its_bound_and_a_trip_is_cut_into_its_segments) {
  std::vector<soma::record> records{record_of(0, 1800), record_of(1, 2300)};
  std::vector<std::vector<soma::fact>> facts{forward(0), forward(500)};
  auto clocks = soma::estimate_clocks(records, facts);
  BOOST_REQUIRE_EQUAL(clocks.size(), 1u);
  auto& w1 = clocks.at("w1");
  // ((T2 - T1) + (T3 - T4)) / 2 = ((300 + θ) + (θ - 100)) / 2: 100 µs off,
  // within the bound of half the 400 µs spent outside the worker.
  BOOST_TEST(w1.offset_us == theta + 100);
  BOOST_TEST(w1.bound_us == 200);
  BOOST_TEST(w1.trips == 2u);
  BOOST_TEST(w1.forward == 0u); // the quicker trip
  BOOST_TEST(w1.wire_out_us == 200);

  auto t = soma::timeline_of(records[0], facts[0], clocks);
  BOOST_TEST((steps(t.path) == steps_t{{"work here tok", 200}, {"wire out w1", 200}, {"queue w1", 50},
                                        {"work w1 embed", 1000}, {"queue w1", 50}, {"wire back w1", 200},
                                        {"work here score", 100}}));
  // The second trip waited 500 µs at the worker: past the host's quickest
  // wire out, it is queue.
  t = soma::timeline_of(records[1], facts[1], clocks);
  BOOST_TEST((steps(t.path) == steps_t{{"work here tok", 200}, {"wire out w1", 200}, {"queue w1", 500},
                                        {"queue w1", 50}, {"work w1 embed", 1000}, {"queue w1", 50},
                                        {"wire back w1", 200}, {"work here score", 100}}));
  // The worker's node, on this machine's clock.
  auto embed = std::find_if(t.all.begin(), t.all.end(), [](auto& s) { return s.node == "embed"; });
  BOOST_REQUIRE(embed != t.all.end());
  BOOST_TEST(embed->began_us == 200 + 700 + 50);
}

BOOST_AUTO_TEST_CASE(a_trip_without_stamps_is_taken_as_symmetric) {
  std::vector<soma::fact> f{ran("embed", 5, 30, "w1"), ran("rank", 40, 20, "w1"),
                            soma::fact{"left", {{"host", "w1"}, {"began_us", 170}, {"took_us", 100}}}};
  auto clocks = soma::estimate_clocks({record_of(0, 270)}, {f});
  BOOST_TEST(clocks.empty());
  auto t = soma::timeline_of(record_of(0, 270), f, clocks);
  BOOST_TEST((steps(t.path) == steps_t{{"wait here", 170}, {"wire out w1", 20}, {"queue w1", 5},
                                        {"work w1 embed", 30}, {"queue w1", 5}, {"work w1 rank", 20},
                                        {"wire back w1", 20}}));
}

BOOST_AUTO_TEST_CASE(parallel_nodes_off_the_path_and_the_clients_wait_on_it) {
  // a and b at once, c after b, then 100 µs of nothing, then d.
  std::vector<soma::fact> f{ran("a", 0, 100), ran("b", 0, 300), ran("c", 300, 100), ran("d", 500, 100)};
  auto t = soma::timeline_of(record_of(0, 650), f, {});
  BOOST_TEST((steps(t.path) == steps_t{{"work here b", 300}, {"work here c", 100}, {"wait here", 100},
                                        {"work here d", 100}, {"wait here", 50}}));
  std::int64_t sum = 0;
  for (auto& s : t.path)
    sum += s.took_us;
  BOOST_TEST(sum == 650);
}

BOOST_AUTO_TEST_CASE(facts_reaching_past_the_record_are_cut_and_said) {
  // Forward 0 as its record says (1,000 µs); forward 1's facts reach 500 µs
  // past its record's 1,000.
  soma_test::scratch tmp;
  soma::store s{tmp / "s"};
  auto r0 = record_of(0, 1000), r1 = record_of(1, 1000);
  r0.when_us = r1.when_us = 1'800'000'000'000'000;
  soma_test::write_forwards(s, "r", {{r0, {ran("a", 0, 1000)}}, {r1, {ran("a", 0, 1500)}}});
  auto report = soma::critical(s, "r");
  BOOST_TEST(report.forwards == 2u);
  BOOST_TEST(report.worst_gap == 0.5);
  BOOST_REQUIRE_EQUAL(report.shares.size(), 1u);
  BOOST_TEST(report.shares[0].took_us == 2000); // each path cut at its forward's end
  BOOST_TEST(report.shares[0].of_took == 1.0);
  BOOST_TEST(report.nodes.front().forwards == 2u);
  BOOST_TEST(!report.slowest); // no node ran at a worker
}

BOOST_AUTO_TEST_SUITE_END()
