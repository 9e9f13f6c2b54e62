// Where a forward's time went across machines: two real soma-node workers,
// one whose clock runs 300 s ahead (faketime), one behind a relay that holds
// everything 40 ms each way. Nodes sleep known amounts; the segments of each
// forward's critical path must add up to its took_us and match the sleeps
// and the delay, and each worker's clock offset must be recovered within
// the bound stated with it.

#include <boost/test/unit_test.hpp>

#include <cmath>
#include <cstdio>
#include <map>

#include <nlohmann/json.hpp>

#include "../store/scratch.hpp"
#include "delaying_relay.hpp"
#include "remote_fixture.hpp"
#include "soma/recorder.hpp"
#include "soma/store/critical.hpp"
#include "soma/store/readers.hpp"
#include "soma/store/tails.hpp"
#include "soma/store/trace.hpp"

using namespace soma_test;
using kind = soma::segment_kind;

namespace {

constexpr std::int64_t ms = 1000;
constexpr std::int64_t shift_us = 300'000'000; // w1's clock: 300 s ahead
constexpr std::int64_t delay_us = 40 * ms;     // w2's wire, each way
// A loaded machine's oversleep and scheduling, on top of a known time: the
// lower bounds are exact (a sleep is at least its time, the relay holds at
// least its delay), the upper ones this loose.
constexpr std::int64_t slack_us = 100 * ms;
// How far the split of w2's round trip into its two ways may stray from
// 40/40: the two ways' work on the wire (sending, receiving) differs a little.
constexpr std::int64_t split_us = 15 * ms;

// What a path spent on `k` at `host` (and `node`, for work).
std::int64_t spent(const std::vector<soma::segment>& path, kind k, const std::string& host,
                   const std::string& node = {}) {
  std::int64_t out = 0;
  for (auto& s : path)
    if (s.kind == k && s.host == host && (node.empty() || s.node == node))
      out += s.took_us;
  return out;
}

std::string run_soma(const std::string& args) {
  std::string out;
  auto* p = ::popen((std::string{SOMA_CLI} + " " + args + " 2>&1").c_str(), "r");
  BOOST_REQUIRE(p);
  char buf[4096];
  while (auto n = std::fread(buf, 1, sizeof buf, p))
    out.append(buf, n);
  ::pclose(p);
  return out;
}

// The store a run of 6 forwards through both workers and 3 run here leaves.
struct recorded {
  scratch dir;
  std::string kept = dir / "kept";
};

void record_run(caf::actor_system& sys, const std::string& kept) {
  // libfaketime preloaded by env, which execs: the pid killed at the end is
  // the worker's (faketime's own wrapper forks, and would orphan it).
  const std::string faketime = "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1";
  BOOST_REQUIRE_MESSAGE(std::filesystem::exists(faketime),
                        faketime << " is missing: scripts/setup installs Debian's faketime");
  node_process ahead{{"env", "LD_PRELOAD=" + faketime, "FAKETIME=+300s", "FAKETIME_DONT_FAKE_MONOTONIC=1",
                      node_program, "--nodes", test_nodes}};
  node_process far{{node_program, "--nodes", test_nodes}};
  delaying_relay slow{far.port, std::chrono::milliseconds(delay_us / ms)};
  auto w1 = soma::worker::connect(sys, "127.0.0.1:" + std::to_string(ahead.port));
  auto w2 = soma::worker::connect(sys, "127.0.0.1:" + std::to_string(slow.port()));
  soma::store store{kept};
  auto broker = soma::broker::embedded({{"w1", w1}, {"w2", w2}});
  auto away = soma::graph::somatize(sys, Nap{30}.named("prep") >> Nap{50}.named("embed").at("w1")
                                           >> Nap{20}.named("score").at("w2") >> Nap{10}.named("post"));
  auto here = soma::graph::somatize(sys, Nap{30}.named("prep") >> Nap{15}.named("embed")
                                           >> Nap{20}.named("score") >> Nap{10}.named("post"));
  soma::recorder watching{sys, store, {.run = "paths"}};
  for (int i = 0; i < 3; ++i)
    BOOST_TEST(here.forward(0, {.watching = watching}) == 4);
  for (int i = 0; i < 6; ++i)
    BOOST_TEST(away.forward(0, {.watching = watching, .broker = broker}) == 4);
}

// Each remote forward's path: it adds up to its took_us, and its segments
// are the sleeps and the relay's delay.
void check_paths(const soma::run_tail& tail, const std::map<std::string, soma::clock_estimate>& clocks) {
  std::int64_t out_w2 = 0, back_w2 = 0;
  for (std::size_t i = 3; i < 9; ++i) {
    auto& rec = tail.records[i];
    auto t = soma::timeline_of(rec, tail.facts[i], clocks);
    std::int64_t sum = 0;
    for (auto& s : t.path)
      sum += s.took_us;
    BOOST_TEST(sum == rec.took_us, "forward " << rec.forward << ": path " << sum << " of " << rec.took_us);
    auto& p = t.path;
    auto near = [](std::int64_t got, std::int64_t want) { return got >= want && got <= want + slack_us; };
    BOOST_TEST(near(spent(p, kind::work, "here", "prep"), 30 * ms), spent(p, kind::work, "here", "prep"));
    BOOST_TEST(near(spent(p, kind::work, "w1", "embed"), 50 * ms), spent(p, kind::work, "w1", "embed"));
    BOOST_TEST(near(spent(p, kind::work, "w2", "score"), 20 * ms), spent(p, kind::work, "w2", "score"));
    BOOST_TEST(near(spent(p, kind::work, "here", "post"), 10 * ms), spent(p, kind::work, "here", "post"));
    auto wire = [&](const std::string& h) {
      return spent(p, kind::wire_out, h) + spent(p, kind::queue, h) + spent(p, kind::wire_back, h);
    };
    BOOST_TEST(wire("w1") <= slack_us, "w1's wire " << wire("w1"));
    BOOST_TEST(near(wire("w2"), 2 * delay_us), "w2's wire " << wire("w2"));
    out_w2 += spent(p, kind::wire_out, "w2");
    back_w2 += spent(p, kind::wire_back, "w2");
  }
  // Each way's share of the delay, as the offset splits it.
  BOOST_TEST(out_w2 / 6 >= delay_us - split_us, "w2's mean wire out " << out_w2 / 6);
  BOOST_TEST(out_w2 / 6 <= delay_us + slack_us, "w2's mean wire out " << out_w2 / 6);
  BOOST_TEST(back_w2 / 6 >= delay_us - split_us, "w2's mean wire back " << back_w2 / 6);
  BOOST_TEST(back_w2 / 6 <= delay_us + slack_us, "w2's mean wire back " << back_w2 / 6);
}

// Over the run: embed at w1 on every remote forward's path, and what it
// would have cost here from the three forwards it ran here.
void check_report(const soma::critical_report& report) {
  BOOST_TEST(report.forwards == 9u);
  BOOST_TEST(report.worst_gap == 0.0);
  auto on = std::find_if(report.nodes.begin(), report.nodes.end(),
                         [](auto& n) { return n.node == "embed" && n.host == "w1"; });
  BOOST_REQUIRE(on != report.nodes.end());
  BOOST_TEST(on->forwards == 6u);
  BOOST_REQUIRE(report.slowest);
  auto& w = *report.slowest;
  BOOST_TEST(w.node == "embed");
  BOOST_TEST(w.host == "w1");
  BOOST_TEST(w.remote == 6u);
  BOOST_TEST(w.here == 3u);
  BOOST_TEST((w.here_mean_us >= 15 * ms && w.here_mean_us <= 15 * ms + slack_us), w.here_mean_us);
  auto saved = w.took_mean_us - w.estimate_mean_us;
  auto want = 6.0 / 9.0 * (w.trip_mean_us - w.here_mean_us);
  BOOST_TEST(std::abs(saved - want) <= 50.0, "saved " << saved << " µs, want " << want);
}

// The command says the same, w1's offset to the microsecond.
void check_command(const std::string& kept, const soma::clock_estimate& w1) {
  auto said = run_soma("critical paths --store " + kept);
  BOOST_TEST_MESSAGE(said); // --log_level=message shows it (docs/critical.md has one)
  BOOST_TEST(said.find("the slowest remote node, embed at w1, ran there in 6 forwards") != std::string::npos, said);
  auto at = said.find("\nw1 ");
  BOOST_REQUIRE_MESSAGE(at != std::string::npos, said);
  auto w1_line = said.substr(at, said.find('\n', at + 1) - at);
  double seconds = 0;
  BOOST_REQUIRE(std::sscanf(w1_line.c_str(), " w1 +%lfs", &seconds) == 1);
  BOOST_TEST(std::abs(seconds * 1e6 - static_cast<double>(w1.offset_us)) <= 1.0, w1_line);
  BOOST_TEST(w1_line.find(" ± ") != std::string::npos, w1_line);
  auto json = nlohmann::json::parse(run_soma("critical paths --json --store " + kept));
  BOOST_TEST(json["slowest"]["node"] == "embed");
  BOOST_TEST(json["clocks"][0]["host"] == "w1");
  BOOST_TEST(std::llabs(json["clocks"][0]["offset_us"].get<std::int64_t>() - shift_us)
             <= json["clocks"][0]["bound_us"].get<std::int64_t>());
}

} // namespace

BOOST_FIXTURE_TEST_SUITE(critical, system_fixture)

BOOST_AUTO_TEST_CASE(segments_add_up_match_the_sleeps_and_the_delay_and_clocks_are_recovered) {
  recorded r;
  record_run(sys, r.kept);
  soma::store store{r.kept, {.read_only = true}};
  auto tail = soma::tails(store, {.last = 9, .facts = 9, .run = std::string{"paths"}}).front();
  BOOST_REQUIRE_EQUAL(tail.records.size(), 9u);
  auto clocks = soma::estimate_clocks(tail.records, tail.facts);
  BOOST_REQUIRE_EQUAL(clocks.count("w1"), 1u);
  BOOST_REQUIRE_EQUAL(clocks.count("w2"), 1u);

  // The shifted clock is found within its bound, and the bound is tight on
  // loopback; the delayed one is found at 0 within a bound the delay widens.
  auto& w1 = clocks.at("w1");
  BOOST_TEST(std::llabs(w1.offset_us - shift_us) <= w1.bound_us,
             "w1's offset " << w1.offset_us << " µs ± " << w1.bound_us << ", shifted " << shift_us);
  BOOST_TEST(w1.bound_us <= 20 * ms);
  BOOST_TEST(w1.trips == 6u);
  auto& w2 = clocks.at("w2");
  BOOST_TEST(std::llabs(w2.offset_us) <= w2.bound_us, "w2's offset " << w2.offset_us << " ± " << w2.bound_us);
  BOOST_TEST(w2.bound_us >= delay_us - 1, "w2's bound " << w2.bound_us << " µs under its 40 ms each way");

  check_paths(tail, clocks);
  check_report(soma::critical(store, "paths"));
  check_command(r.kept, w1);
}

BOOST_AUTO_TEST_CASE(the_trace_puts_each_workers_spans_where_its_clock_says) {
  recorded r;
  record_run(sys, r.kept);
  soma::store store{r.kept, {.read_only = true}};
  auto doc = nlohmann::json::parse(soma::trace_of(store, "paths").json);
  std::map<std::int64_t, std::string> processes;
  for (auto& e : doc["traceEvents"])
    if (e["ph"] == "M" && e["name"] == "process_name")
      processes[e["pid"].get<std::int64_t>()] = e["args"]["name"];
  // Each trip to w2 and the score span inside it: the span begins a wire's
  // delay after the trip, and ends one before the trip does.
  std::vector<const nlohmann::json*> trips, scores;
  for (auto& e : doc["traceEvents"]) {
    if (e["ph"] == "X" && e["name"] == "trip to w2")
      trips.push_back(&e);
    if (e["ph"] == "X" && e["name"] == "score" && processes[e["pid"].get<std::int64_t>()] == "worker w2")
      scores.push_back(&e);
  }
  BOOST_REQUIRE_EQUAL(trips.size(), 6u);
  BOOST_REQUIRE_EQUAL(scores.size(), 6u);
  for (std::size_t i = 0; i < 6; ++i) {
    auto trip_ts = (*trips[i])["ts"].get<std::int64_t>(), trip_dur = (*trips[i])["dur"].get<std::int64_t>();
    auto ts = (*scores[i])["ts"].get<std::int64_t>(), dur = (*scores[i])["dur"].get<std::int64_t>();
    BOOST_TEST(ts - trip_ts >= delay_us - split_us, "score " << i << " at " << ts - trip_ts << " µs into its trip");
    BOOST_TEST(trip_ts + trip_dur - (ts + dur) >= delay_us - split_us,
               "score " << i << " ends " << trip_ts + trip_dur - (ts + dur) << " µs before its trip");
  }
  // otherData says each offset with its bound: w1's is its shift.
  auto workers = doc["otherData"]["workers"].get<std::string>();
  auto at = workers.find(" w1 +");
  BOOST_REQUIRE_MESSAGE(at != std::string::npos, workers);
  std::int64_t offset = 0, bound = 0;
  BOOST_REQUIRE(std::sscanf(workers.c_str() + at, " w1 +%ld ± %ld", &offset, &bound) == 2);
  BOOST_TEST(std::llabs(offset - shift_us) <= bound, workers);
}

BOOST_AUTO_TEST_SUITE_END()
