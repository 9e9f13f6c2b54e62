#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include <cairo.h>

#include "scratch.hpp"
#include "soma/draw/declaration.hpp"
#include "soma/draw/machines.hpp"
#include "soma/draw/progress.hpp"
#include "soma/draw/spent.hpp"
#include "soma/graph.hpp"
#include "drawn.hpp"
#include "writing.hpp"

using namespace soma_test;
namespace draw = soma::draw;

namespace {

draw::series decaying(std::size_t n) {
  draw::series s;
  for (std::size_t i = 0; i < n; ++i)
    s.emplace_back(i, 1.5 * std::pow(0.9, static_cast<double>(i)) + 0.2 + (i % 2 ? 0.05 : -0.05));
  return s;
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// The PNG at `path` decoded by cairo: its width and height, or 0 x 0.
std::pair<int, int> png_size(const std::string& path) {
  auto* s = cairo_image_surface_create_from_png(path.c_str());
  std::pair<int, int> size{0, 0};
  if (cairo_surface_status(s) == CAIRO_STATUS_SUCCESS)
    size = {cairo_image_surface_get_width(s), cairo_image_surface_get_height(s)};
  cairo_surface_destroy(s);
  return size;
}

std::vector<soma::fact> forward_facts(double loss) {
  return {{"ran", {{"node", "tokenize"}, {"began_us", 1}, {"took_us", 12}}},
          {"ran", {{"node", "embed"}, {"began_us", 14}, {"took_us", 30}, {"host", "w1"}}},
          {"left", {{"host", "w1"}, {"began_us", 13}, {"took_us", 900}}},
          {"ran", {{"node", "score"}, {"began_us", 920}, {"took_us", 3}}},
          {"finished", {{"took_us", 930}}},
          {"loss", {{"value", loss}}}};
}

struct recorded {
  scratch tmp;
  soma::store s{tmp / "s"};
  recorded() {
    std::vector<std::vector<soma::fact>> told;
    for (auto& [n, v] : decaying(40))
      told.push_back(forward_facts(v));
    write_run(s, "tuesday", told);
  }
};

} // namespace

BOOST_AUTO_TEST_SUITE(figures)

BOOST_AUTO_TEST_CASE(progress_draws_every_point_and_a_centred_mean_inside_their_range) {
  auto values = decaying(40);
  auto f = draw::progress(values, "tuesday", "loss");
  auto& raw = series_line(f, "raw");
  auto& mean = series_line(f, "mean");
  // Nothing invented: one vertex per value told, in forward order; one mean
  // per full window (3 of 40 values: forwards 1 to 38), each on its centre.
  BOOST_REQUIRE_EQUAL(raw.points.size(), 40u);
  BOOST_REQUIRE_EQUAL(mean.points.size(), 38u);
  auto [lo, hi] = std::minmax_element(raw.points.begin(), raw.points.end(),
                                      [](auto& a, auto& b) { return a.y < b.y; });
  for (std::size_t i = 0; i < 40; ++i)
    if (i > 0)
      BOOST_TEST(raw.points[i].x > raw.points[i - 1].x);
  for (std::size_t j = 0; j < 38; ++j) {
    BOOST_TEST(mean.points[j].x == raw.points[j + 1].x);
    BOOST_TEST(mean.points[j].y >= lo->y - 1e-9);
    BOOST_TEST(mean.points[j].y <= hi->y + 1e-9);
  }
  BOOST_TEST(mean.width > raw.width); // bold over thin
}

BOOST_AUTO_TEST_CASE(progress_svg_holds_both_series_the_window_and_the_labels) {
  auto svg = draw::progress(decaying(40), "tuesday", "loss").svg();
  BOOST_TEST(svg.starts_with("<?xml"));
  for (auto part : {"class=\"series-raw\"", "class=\"series-mean\"", "<title>loss over run tuesday</title>",
                    ">forward</text>", ">loss</text>", "rolling mean, window 3", "40 values told"})
    BOOST_TEST(has(svg, part), part);
  auto wide = draw::progress(decaying(40), "tuesday", "loss", {.window = 9}).svg();
  BOOST_TEST(has(wide, "rolling mean, window 9"));
}

BOOST_AUTO_TEST_CASE(a_long_series_is_thinned_to_real_points_keeping_its_extremes) {
  draw::series values;
  for (std::size_t i = 0; i < 100000; ++i)
    values.emplace_back(i, std::sin(static_cast<double>(i) * 0.001) + (i == 54321 ? 5 : 0));
  auto f = draw::progress(values, "long", "loss");
  auto& raw = series_line(f, "raw");
  BOOST_TEST(raw.points.size() < 5000u);
  auto top = std::min_element(raw.points.begin(), raw.points.end(),
                              [](auto& a, auto& b) { return a.y < b.y; });
  // The spike at 54321 (the series' maximum) is still drawn, at the top.
  BOOST_TEST(top->y < 110);
  BOOST_TEST(has(f.svg(), "window 1001"));
}

BOOST_AUTO_TEST_CASE(progress_reads_a_store_and_names_what_is_missing) {
  recorded r;
  auto f = draw::progress(r.s, "tuesday");
  BOOST_TEST((f == draw::progress(decaying(40), "tuesday", "loss")));
  BOOST_CHECK_EXCEPTION(draw::progress(r.s, "wednesday"), soma::store_error,
                        [](auto& e) { return has(e.what(), "no run 'wednesday'"); });
  BOOST_CHECK_EXCEPTION(draw::progress(r.s, "tuesday", "acc"), soma::store_error,
                        [](auto& e) { return has(e.what(), "told 'acc'"); });
  BOOST_CHECK_EXCEPTION(draw::progress(draw::series{}, "tuesday", "loss"), std::invalid_argument,
                        [](auto& e) { return has(e.what(), "nothing to draw"); });
  BOOST_CHECK_EXCEPTION(draw::progress(decaying(5), "tuesday", "loss", {.window = 4}),
                        std::invalid_argument, [](auto& e) { return has(e.what(), "odd"); });
}

BOOST_AUTO_TEST_CASE(spent_has_a_bar_per_node_with_units) {
  recorded r;
  auto svg = draw::spent(r.s, "tuesday").svg();
  for (auto part : {">tokenize</text>", ">embed</text>", ">score</text>", "time spent (ms)",
                    "class=\"series-spent\"", "480 µs, ran 40"})
    BOOST_TEST(has(svg, part), part);
}

BOOST_AUTO_TEST_CASE(machines_sets_working_against_waiting_per_host) {
  recorded r;
  auto svg = draw::machines(r.s, "tuesday").svg();
  for (auto part : {">here</text>", ">w1</text>", "class=\"series-working\"",
                    "class=\"series-waiting\"", "waiting 34.8 ms, 40 slices", "time (ms)"})
    BOOST_TEST(has(svg, part), part);
  BOOST_CHECK_THROW(draw::machines(std::vector<soma::host_row>{}, "x"), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(a_declaration_is_drawn_having_never_run) {
  std::vector<soma::node_declaration> decl{
    {"tokenize", "Tokenize", "v1", true, std::nullopt},
    {"embed", "Embed", std::nullopt, false, "w1"},
    {"score", "Score", std::nullopt, false, std::nullopt}};
  auto f = draw::graph(decl, "seed");
  auto svg = f.svg();
  for (auto part : {">tokenize</text>", ">embed</text>", ">score</text>", ">at w1</text>",
                    ">here</text>", ">frozen v1, cached</text>", "class=\"series-away\""})
    BOOST_TEST(has(svg, part), part);
  // Two arrows between three boxes.
  auto heads = std::count_if(f.marks().begin(), f.marks().end(),
                             [](auto& m) { return std::holds_alternative<draw::polygon>(m); });
  BOOST_TEST(heads == 2);
  BOOST_CHECK_THROW(draw::graph({}), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(pngs_decode_with_the_expected_size) {
  recorded r;
  scratch out;
  auto progress = draw::progress(r.s, "tuesday");
  progress.save(out / "p.png");
  BOOST_TEST((png_size(out / "p.png") == std::make_pair(960, 540)));
  auto spent = draw::spent(r.s, "tuesday");
  spent.save(out / "s.PNG");
  BOOST_TEST((png_size(out / "s.PNG") == std::make_pair(spent.width(), spent.height())));
  auto g = draw::graph({{"a", "A", std::nullopt, false, std::nullopt}});
  g.save(out / "g.png");
  BOOST_TEST((png_size(out / "g.png") == std::make_pair(640, g.height())));
}

BOOST_AUTO_TEST_CASE(saving_needs_a_known_extension_and_a_writable_place) {
  auto f = draw::progress(decaying(3), "x", "loss");
  scratch out;
  for (auto bad : {"x.jpg", "x", "dir.svg/x"})
    BOOST_CHECK_EXCEPTION(f.save(out / bad), std::invalid_argument,
                          [](auto& e) { return has(e.what(), "must end in .svg or .png"); });
  BOOST_CHECK_EXCEPTION(f.save(out / "missing/x.svg"), std::runtime_error,
                        [](auto& e) { return has(e.what(), "cannot write the figure"); });
}

BOOST_AUTO_TEST_SUITE_END()
