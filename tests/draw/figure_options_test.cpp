// The figures on the runs a new user meets first (issue 17): one forward,
// three, a hundred thousand, with huge (1e12) and tiny (1e-6) values; a log
// axis, overlays with a legend below the chart, a size and a title; machines' labels.
// Each asserts on what is drawn: the texts, the points, where they sit.

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include "drawn.hpp"
#include "soma/draw/bars.hpp"
#include "soma/draw/machines.hpp"
#include "soma/draw/progress.hpp"

using namespace soma_test;
namespace draw = soma::draw;

namespace {

// n values around `scale`, noisy (every other one 10 % off), so a mean that
// narrowed to the last value at the end would leap.
draw::series noisy(std::size_t n, double scale) {
  draw::series s;
  for (std::size_t i = 0; i < n; ++i)
    s.emplace_back(i, scale * (1 + 0.5 * std::sin(static_cast<double>(i) * 1e-4)
                               + (i % 2 ? 0.1 : -0.1)));
  return s;
}

bool holds(const std::vector<std::string>& labels, const std::string& label) {
  return std::find(labels.begin(), labels.end(), label) != labels.end();
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// No text begins left of the figure, and no tick label is a long run of
// digits (3000000000000).
void readable(const draw::figure& f) {
  for (auto& t : texts(f)) {
    BOOST_TEST(left_edge(t) >= 0, "'" << t.content << "' begins at x " << left_edge(t));
    BOOST_TEST(t.content.find("000000") == std::string::npos, t.content);
  }
}

} // namespace

BOOST_AUTO_TEST_SUITE(figure_options)

BOOST_AUTO_TEST_CASE(one_forward_is_a_dot_on_its_one_tick) {
  for (double v : {1e12, 1e-6, -40.0}) {
    auto f = draw::progress(draw::series{{0, v}}, "once", "loss");
    auto dots = series_boxes(f, "point");
    BOOST_REQUIRE_EQUAL(dots.size(), 1u);
    BOOST_TEST(dots[0].width >= 6);
    // The dot is inside the area, x centred: not an empty chart.
    auto* a = f.area();
    BOOST_REQUIRE(a);
    double cx = dots[0].x + dots[0].width / 2, cy = dots[0].y + dots[0].height / 2;
    BOOST_TEST(std::fabs(cx - (a->left + a->right) / 2) < 1);
    BOOST_TEST(cy > a->top);
    BOOST_TEST(cy < a->bottom);
    BOOST_TEST(a->y_lo < v);
    BOOST_TEST(a->y_hi > v);
    BOOST_TEST((x_ticks(f) == std::vector<std::string>{"0"}));
    readable(f);
  }
}

BOOST_AUTO_TEST_CASE(three_forwards_get_ticks_on_whole_forwards) {
  auto f = draw::progress(draw::series{{0, 3e12}, {1, 2e12}, {2, 2.5e12}}, "three", "loss");
  BOOST_TEST((x_ticks(f) == std::vector<std::string>{"0", "1", "2"}));
  auto ys = y_ticks(f);
  BOOST_TEST(!ys.empty());
  BOOST_TEST(holds(ys, "3e12"), "3e12");
  BOOST_TEST(holds(ys, "2e12"), "2e12");
  BOOST_TEST(series_boxes(f, "point").empty()); // a line shows three points
  readable(f);
}

BOOST_AUTO_TEST_CASE(huge_and_tiny_values_label_their_axis_readably_inside_the_figure) {
  auto tiny = draw::progress(noisy(3, 1e-6), "tiny", "loss");
  for (auto& l : y_ticks(tiny))
    BOOST_TEST((l == "0" || has(l, "e-0")), l);
  readable(tiny);
  // The widest label a chart can get pushes its area right, not off the edge.
  auto wide = draw::progress(draw::series{{0, -1.234567e12}, {1, -1.234568e12}}, "wide", "loss");
  readable(wide);
  BOOST_TEST(wide.area()->left > 96);
}

BOOST_AUTO_TEST_CASE(a_hundred_thousand_points_end_their_mean_without_a_jump) {
  auto values = noisy(100'000, 1e12);
  auto f = draw::progress(values, "long", "loss");
  readable(f);
  auto& mean = series_line(f, "mean");
  auto& raw = series_line(f, "raw");
  BOOST_REQUIRE(mean.points.size() > 10);
  // The window is full at every mean drawn: it ends half a window early
  // (forward 99,499 of 99,999), not on the last raw value.
  auto at = [&](double forward) {
    auto* a = f.area();
    return a->left + (forward - a->x_lo) / (a->x_hi - a->x_lo) * (a->right - a->left);
  };
  BOOST_TEST(std::fabs(mean.points.back().x - at(99'999 - 500)) < 0.01);
  BOOST_TEST(std::fabs(mean.points.front().x - at(500)) < 0.01);
  BOOST_TEST(raw.points.back().x > mean.points.back().x);
  // The mean's last pixels move as the sine does (under 2 px a pixel); a
  // mean narrowing to the last raw value there would leap by the noise,
  // a tenth of the scale: over 30 px.
  auto n = mean.points.size();
  for (std::size_t i = n - 8; i < n; ++i)
    BOOST_TEST(std::fabs(mean.points[i].y - mean.points[i - 1].y) < 4, "at " << i);
  BOOST_TEST(has(f.svg(), "where its window is full"));
}

BOOST_AUTO_TEST_CASE(a_log_axis_ticks_powers_of_ten_and_says_what_it_left_out) {
  draw::series values{{0, 1e12}, {1, 0}, {2, 1e3}, {3, -5}, {4, 1e-6}, {5, 2e-6}};
  auto f = draw::progress(values, "log", "loss", {.log_y = true});
  auto ys = y_ticks(f);
  BOOST_REQUIRE(ys.size() >= 3);
  for (auto& l : ys) {
    // Each label is a power of ten: "1e12", "1k", "0.001", "1e-06".
    auto v = std::stod(l.ends_with("k") ? l.substr(0, l.size() - 1) + "e3" : l);
    BOOST_TEST(std::fabs(std::log10(v) - std::round(std::log10(v))) < 1e-9, l);
  }
  BOOST_TEST(holds(ys, "1e12"), "1e12");
  BOOST_TEST(has(f.svg(), "2 values of 0 or less not drawn on the log axis"));
  BOOST_TEST(series_line(f, "raw").points.size() == 4u);
  // 1e3 sits halfway (in decades) between 1e-6 and 1e12.
  auto* a = f.area();
  BOOST_TEST(a->y_lo == 1e-6);
  BOOST_TEST(a->y_hi == 1e12);
  readable(f);
  BOOST_CHECK_EXCEPTION(draw::progress(draw::series{{0, 0}, {1, -1}}, "flat", "loss", {.log_y = true}),
                        std::invalid_argument, [](auto& e) { return has(e.what(), "log axis"); });
}

BOOST_AUTO_TEST_CASE(overlays_name_each_series_in_a_legend) {
  auto runs = draw::compare({{"a", noisy(3, 1), ""}, {"b", noisy(40, 2), ""}}, "loss");
  auto svg = runs.svg();
  for (auto part : {">a (window 1)</text>", ">b (window 3)</text>", "series-raw-1", "series-mean-2",
                    "<title>loss over 2 runs</title>"})
    BOOST_TEST(has(svg, part), part);
  auto facts = draw::compare({{"a", noisy(5, 1), "loss"}, {"a", noisy(5, 0.5), "acc"},
                              {"a", {}, "lr"}},
                             "loss");
  auto fsvg = facts.svg();
  for (auto part : {">a/loss (window 1)</text>", ">a/acc (window 1)</text>",
                    "told nothing: a/lr", "<title>loss, acc, lr over run a</title>"})
    BOOST_TEST(has(fsvg, part), part);
  // A one-point series in an overlay is a dot too.
  auto dots = draw::compare({{"a", {{0, 1}}, ""}, {"b", noisy(3, 1), ""}}, "loss");
  BOOST_TEST(series_boxes(dots, "point-1").size() == 1u);
  readable(runs);
}

// The legend sits below the area, never in it: whatever the series do (a
// rising curve, a falling one, one along the top), however many are
// compared, at any size, no swatch or text of it is inside the area, and
// every entry is inside the figure.
BOOST_AUTO_TEST_CASE(the_legend_never_covers_the_area) {
  draw::series rising, falling, high;
  for (std::size_t i = 0; i < 200; ++i) {
    rising.emplace_back(i, static_cast<double>(i));
    falling.emplace_back(i, 200.0 - static_cast<double>(i));
    high.emplace_back(i, i % 50 == 0 ? 0.0 : 10.0); // along the top, four dips
  }
  std::vector<draw::compared> eight;
  for (int i = 0; i < 8; ++i)
    eight.push_back({"a-run-with-a-long-name-" + std::to_string(i), rising, ""});
  std::vector<draw::figure> figures{
    draw::progress(rising, "r", "loss"), draw::progress(falling, "r", "loss"),
    draw::progress(high, "r", "loss"), draw::progress({{0, 5}, {1, 0}, {2, 10}, {3, 10}}, "r", "loss"),
    draw::compare({{"a", rising, ""}, {"b", falling, ""}}, "loss"), draw::compare(eight, "loss"),
    draw::compare(eight, "loss", {.frame = {.width = 1280, .height = 720}})};
  for (auto& f : figures) {
    auto* a = f.area();
    BOOST_REQUIRE(a);
    std::size_t entries = 0;
    for (auto& t : texts(f)) {
      if (t.series != "legend")
        continue;
      ++entries;
      // A text's glyphs reach about its size above its baseline.
      BOOST_TEST(t.at.y - t.size > a->bottom, "'" << t.content << "' at y " << t.at.y
                                                 << " is in the area (bottom " << a->bottom << ")");
      BOOST_TEST(t.at.y < f.height(), "'" << t.content << "' is below the figure");
      BOOST_TEST(left_edge(t) + draw::text_width(t.content, t.size) <= f.width(), t.content);
    }
    for (auto& m : f.marks())
      if (auto* l = std::get_if<draw::line>(&m); l && l->series == "legend")
        for (auto& p : l->points)
          BOOST_TEST(p.y > a->bottom);
    BOOST_TEST(entries >= 2u, f.title());
    readable(f);
  }
  // Eight long names take more than one row, and the chart keeps its room.
  auto& many = figures[5];
  BOOST_TEST(many.area()->bottom - many.area()->top > 200);
}

BOOST_AUTO_TEST_CASE(a_size_and_a_title_are_kept_and_bounded) {
  auto f = draw::progress(noisy(40, 1), "t", "loss",
                          {.frame = {.width = 1280, .height = 720, .title = "my loss"}});
  BOOST_TEST(f.width() == 1280);
  BOOST_TEST(f.height() == 720);
  auto svg = f.svg();
  BOOST_TEST(has(svg, "width=\"1280\" height=\"720\""));
  BOOST_TEST(has(svg, "<title>my loss</title>"));
  BOOST_TEST(has(svg, "font-weight=\"bold\">my loss</text>"));
  BOOST_TEST(f.area()->right == 1250);
  auto small = draw::progress(noisy(40, 1e12), "t", "loss", {.frame = {.width = 320, .height = 240}});
  readable(small);
  for (auto bad : {draw::framing{.width = 100, .height = 300}, draw::framing{.width = 5000, .height = 300},
                   draw::framing{.width = 400, .height = 3001}})
    BOOST_CHECK_EXCEPTION(draw::progress(noisy(3, 1), "t", "loss", {.frame = bad}),
                          std::invalid_argument, [](auto& e) {
                            return has(e.what(), "320 to 4000") && has(e.what(), "240 to 3000");
                          });
}

BOOST_AUTO_TEST_CASE(machines_labels_use_one_unit_and_a_small_wait_shows) {
  std::vector<soma::host_row> rows{{"here", 0, 300'000, 0}, {"w1", 3, 800'000, 2289},
                                   {"w2", 1, 800'000, 2}};
  auto f = draw::machines(rows, "r");
  auto svg = f.svg();
  BOOST_TEST(has(svg, ">working 800 ms, waiting 2.3 ms, 3 slices</text>"));
  BOOST_TEST(has(svg, ">working 800 ms, waiting 0.002 ms, 1 slice</text>"));
  BOOST_TEST(has(svg, ">working 300 ms</text>"));
  auto waits = series_boxes(f, "waiting");
  BOOST_REQUIRE_EQUAL(waits.size(), 2u);
  for (auto& b : waits)
    BOOST_TEST(b.width >= draw::least_part_width - 1e-9);
  // The legend's entries sit side by side: "waiting" right after "working".
  double working = -1, waiting = -1;
  for (auto& t : texts(f)) {
    if (t.content == "working")
      working = t.at.x;
    if (t.content == "waiting")
      waiting = t.at.x;
  }
  BOOST_REQUIRE(working > 0);
  BOOST_TEST(waiting - working > draw::text_width("working", 12));
  BOOST_TEST(waiting - working < draw::text_width("working", 12) + 60);
  auto sized = draw::machines(rows, "r", {.width = 800, .height = 400, .title = "hosts"});
  BOOST_TEST(sized.height() == 400);
  BOOST_TEST(sized.title() == "hosts");
  readable(f);
}

BOOST_AUTO_TEST_SUITE_END()
