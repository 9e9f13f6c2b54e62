// soma live's view (apps/soma/live_view.hpp) in any terminal: render() keeps
// every line within the width it is given, down to a terminal one column
// wide, and never throws (a width under 12 once wrapped an unsigned
// subtraction in the slowest nodes' table and threw std::out_of_range).

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <map>
#include <string>

#include "../draw/writing.hpp"
#include "../store/scratch.hpp"
#include "live_view.hpp"
#include "soma/store/readings.hpp"

using soma::cli::render;
using soma::cli::text_columns;
using soma::cli::view;

BOOST_AUTO_TEST_SUITE(live_view)

BOOST_AUTO_TEST_CASE(every_line_fits_the_terminal_at_every_width) {
  view v;
  v.run = "a-run-with-a-long-name";
  v.fact = "loss";
  v.found = true;
  v.forwards = 1200;
  v.ok = 1190;
  v.broke = 9;
  v.open = 1;
  v.last = 0.25;
  v.told = 1200;
  v.valued = 1200;
  for (std::uint64_t n = 0; n < 1200; ++n)
    v.values.add(n, 2.0 - static_cast<double>(n) / 1000.0);
  v.rate = 41.5;
  v.elapsed_s = 29;
  v.last_when = 1'700'000'029;
  v.now = 1'700'000'030;
  for (auto name : {"tokenize", "an-embedding-node-with-a-long-name", "score"}) {
    soma::node_row r;
    r.node = name;
    r.ran = 100;
    r.took_us = 123'456;
    r.mean_us = 1234.5;
    v.slowest.push_back(r);
  }
  v.opinions = {"stalled_run run 'a-run-with-a-long-name' 31 s over 30 s"};
  v.machines = {{"w1 alpha-101", soma::machine_state::reporting},
                {"w2 a-machine-with-a-long-name-4242", soma::machine_state::quiet}};
  for (std::size_t width = 1; width <= 120; ++width) {
    std::vector<std::string> lines;
    BOOST_REQUIRE_NO_THROW(lines = render(v, width));
    BOOST_TEST_CONTEXT("width " << width) {
      BOOST_TEST(!lines.empty());
      for (auto& l : lines)
        BOOST_TEST(text_columns(l) <= width, "'" << l << "' is wider than the terminal");
    }
  }
  // At 80 columns the nodes' table shows each node by name.
  auto wide = render(v, 80);
  std::string all;
  for (auto& l : wide)
    all += l + "\n";
  BOOST_TEST(all.find("tokenize") != std::string::npos);
  BOOST_TEST(all.find("score") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_quiet_machine_of_the_run_wears_a_badge) {
  // Readings as a fleet writes them: w1's machine 10 s ago, w2's 1 s later,
  // beta (no host of the run) newest; every 0.5 s, so 1.5 s behind is quiet.
  soma_test::scratch dir;
  soma::store s{dir / "kept"};
  std::int64_t t0 = 1'000'000'000'000;
  soma::put_reading(s, {"alpha-101", 0.5, 0.5, 2, 10, 0, t0});
  soma::put_reading(s, {"gamma-303", 0.5, 0.5, 2, 10, 0, t0 + 9'000'000});
  soma::put_reading(s, {"beta-202", 0.5, 0.5, 2, 10, 0, t0 + 10'000'000});
  std::map<std::string, std::string> run_machines{
    {"w1", "alpha-101"}, {"w2", "gamma-303"}, {"w3", "no-readings-9"}};
  // As of beta's reading: alpha is 10 s behind, gamma 1 s; w3 has no reading.
  auto states = soma::cli::machine_states(s, run_machines, t0 + 10'000'000);
  BOOST_REQUIRE_EQUAL(states.size(), 2u);
  BOOST_TEST(states[0].first == "w1 alpha-101");
  BOOST_TEST(states[0].second == soma::machine_state::quiet);
  BOOST_TEST(states[1].first == "w2 gamma-303");
  BOOST_TEST(states[1].second == soma::machine_state::reporting);
  // A minute later by the reader's clock, the whole store is silent.
  states = soma::cli::machine_states(s, run_machines, t0 + 70'000'000);
  BOOST_TEST(states[1].second == soma::machine_state::quiet);

  view v;
  v.run = "remote";
  v.fact = "loss";
  v.found = true;
  v.forwards = 4;
  v.machines = {{"w1 alpha-101", soma::machine_state::quiet},
                {"w2 gamma-303", soma::machine_state::reporting}};
  auto has = [](const std::vector<std::string>& lines, const std::string& line) {
    return std::find(lines.begin(), lines.end(), line) != lines.end();
  };
  BOOST_TEST(has(render(v, 80), "machines: w1 alpha-101 [QUIET]   w2 gamma-303 reporting"));
  // Narrow, it counts them, the badge kept.
  BOOST_TEST(has(render(v, 36), "machines: 1 reporting, 1 [QUIET]"));
  v.machines.clear(); // a run that went nowhere: no line
  for (auto& l : render(v, 80))
    BOOST_TEST(l.find("machines:") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_finished_runs_elapsed_time_stops_with_it) {
  // Three forwards 0, 2 and 5 s after 1 000 000 s, closed by their recorder;
  // looked at long after: elapsed is the run's 5 s, not the clock's.
  soma_test::scratch dir;
  soma::store s{dir / "kept"};
  std::vector<soma_test::written> fs;
  for (std::int64_t at : {0, 2, 5}) {
    soma::record r;
    r.state = soma::outcome::ok;
    r.when_us = (1'000'000 + at) * 1'000'000;
    fs.push_back({r, {}});
  }
  soma_test::write_forwards(s, "done", fs);
  s.env().write([&](MDB_txn* txn, auto& dbi) {
    soma::detail::run_meta meta;
    meta.next = 3;
    meta.ended_us = 1'000'006'000'000;
    auto key = soma::detail::meta_key("done");
    s.env().put(txn, dbi(soma::detail::db::meta), key, soma::detail::encode_run_meta(meta, key));
  });
  soma::cli::run_follower follower{"done", "loss"};
  auto v = follower.read(s, 2'000'000);
  BOOST_TEST(v.status == soma::run_status::finished);
  BOOST_REQUIRE(v.elapsed_s.has_value());
  BOOST_TEST(*v.elapsed_s == 5);
}

BOOST_AUTO_TEST_SUITE_END()
