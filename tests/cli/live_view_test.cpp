// soma live's view (apps/soma/live_view.hpp) in any terminal: render() keeps
// every line within the width it is given, down to a terminal one column
// wide, and never throws (a width under 12 once wrapped an unsigned
// subtraction in the slowest nodes' table and threw std::out_of_range).

#include <boost/test/unit_test.hpp>

#include <string>

#include "live_view.hpp"

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

BOOST_AUTO_TEST_SUITE_END()
