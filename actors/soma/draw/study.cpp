#include "soma/draw/study.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "soma/draw/chart.hpp"
#include "soma/store/readers.hpp"
#include "soma/store/trials.hpp"

namespace soma::draw {

namespace {

constexpr int default_width = 960, default_height = 760;
constexpr double left = 96;

// The value `name` of `vs` as a number, when it has one.
std::optional<double> number_in(const values& vs, const std::string& name) {
  auto* v = vs.find(name);
  if (!v)
    return std::nullopt;
  if (auto* d = std::get_if<double>(v))
    return *d;
  if (auto* i = std::get_if<std::int64_t>(v))
    return static_cast<double>(*i);
  return std::nullopt;
}

// The first numeric result a done trial gave, the one drawn when none is named.
std::string first_numeric_result(const std::vector<trial_row>& rows) {
  for (auto& t : rows)
    if (t.state == trial_state::done)
      for (auto& [n, v] : t.result)
        if (!n.empty() && (std::holds_alternative<double>(v) || std::holds_alternative<std::int64_t>(v)))
          return n;
  return {};
}

// A done trial's result, as drawn: at its number, or at its parameter `by`.
struct drawn {
  std::uint64_t number;
  double value;
  double x;
};

// The trials' results to draw, and how many were left out and why.
struct tally {
  std::vector<drawn> results;
  std::size_t not_done = 0, broke = 0, without = 0, without_by = 0;
};

tally tally_of(const std::vector<trial_row>& rows, const std::string& result, const std::string& by) {
  tally out;
  for (auto& t : rows) {
    auto x = by.empty() ? std::optional{static_cast<double>(t.number)} : number_in(t.params, by);
    if (t.state == trial_state::broke)
      ++out.broke;
    else if (t.state != trial_state::done)
      ++out.not_done;
    else if (auto v = number_in(t.result, result); !v || !std::isfinite(*v))
      ++out.without;
    else if (!x || !std::isfinite(*x))
      ++out.without_by;
    else
      out.results.push_back({t.number, *v, *x});
  }
  return out;
}

// The parameter a study's figure is drawn against when none is named: its
// only one, when every trial has just that one; else none (by number).
std::string only_parameter(const std::vector<trial_row>& rows) {
  std::string only;
  for (auto& t : rows) {
    std::size_t n = 0;
    for (auto& [name, v] : t.params) {
      ++n;
      if (!only.empty() && name != only)
        return {};
      only = name;
    }
    if (n != 1)
      return {};
  }
  return only;
}

// Whether values spread over more than 2 decades, all above 0: a log axis.
bool spans_decades(const std::vector<drawn>& xs) {
  auto [lo, hi] = std::minmax_element(xs.begin(), xs.end(),
                                      [](const drawn& a, const drawn& b) { return a.x < b.x; });
  return lo->x > 0 && hi->x / lo->x > 100;
}

// The title block's line: how many were drawn, and what was not.
std::string drawn_line(const tally& t, std::size_t trials, const std::string& result,
                       const std::string& by) {
  std::string left_out;
  auto say = [&](std::size_t n, const std::string& why) {
    if (n)
      left_out += ", " + std::to_string(n) + " " + why;
  };
  say(t.not_done, "waiting or claimed");
  say(t.broke, "broke");
  say(t.without, "without " + result);
  say(t.without_by, "without a number for " + by);
  return std::to_string(t.results.size()) + " of " + std::to_string(trials) + " trials drawn"
         + (left_out.empty() ? "" : " (not drawn:" + left_out.substr(1) + ")") + "; below, bold: the lowest "
         + result;
}

// Where the two charts go: they share the height below the title block,
// the results above, the curves below, each with its axis labels under it.
struct areas {
  double right, upper_bottom, lower_top, lower_bottom;
};

areas areas_of(int width, int height) {
  double right = width - 30, plotted = std::max(40.0, height - 238.0);
  double upper_bottom = 78 + plotted * 0.48, lower_top = upper_bottom + 90;
  return {right, upper_bottom, lower_top, lower_top + plotted * 0.52};
}

// Above: the result of each trial against its number, or its parameter
// `by` (on a log axis when its values span more than 2 decades); the
// lowest (`best`) in the mean's colour, labelled with its parameters.
void draw_results(figure& f, const areas& at, const std::vector<trial_row>& rows, const tally& t,
                  const drawn& lo, const drawn& hi, const std::string& result, const std::string& by) {
  double pad = (hi.value - lo.value) * 0.08;
  auto [x_lo, x_hi] = std::minmax_element(t.results.begin(), t.results.end(),
                                          [](const drawn& a, const drawn& b) { return a.x < b.x; });
  bool log_x = !by.empty() && spans_decades(t.results);
  double first = by.empty() ? static_cast<double>(rows.front().number) : x_lo->x;
  double last = by.empty() ? static_cast<double>(rows.back().number) : x_hi->x;
  chart top{f, left, 78, at.right, at.upper_bottom, first, last, lo.value - pad, hi.value + pad,
            {.whole_x = by.empty(), .log_x = log_x}};
  top.x_axis(by.empty() ? "trial" : log_x ? by + " (log axis)" : by);
  top.y_axis(result);
  for (auto& r : t.results) {
    auto p = top.at(r.x, r.value);
    f.add(box{p.x - 3.5, p.y - 3.5, 7, 7, r.number == lo.number ? palette::mean : palette::raw,
              std::nullopt, 3.5, "result"});
  }
  // The best trial, named by what it was: its parameters, and its number.
  auto& best = rows[static_cast<std::size_t>(lo.number - rows.front().number)];
  auto p = top.at(lo.x, lo.value);
  bool to_left = p.x > (top.left() + top.right()) / 2;
  f.add(text{{to_left ? p.x - 8 : p.x + 8, p.y - 8},
             "best: #" + std::to_string(best.number) + (best.params.empty() ? "" : " " + best.params.text()),
             11.5, to_left ? align::end : align::start, palette::mean, true, 0, "best"});
  top.frame();
}

// Each drawn trial's curve of `fact` over its run: (trial, points), the
// trials whose run told it, and the range of all of them.
struct curves {
  std::vector<std::pair<std::uint64_t, std::vector<std::pair<std::uint64_t, double>>>> of;
  double ylo = std::numeric_limits<double>::infinity(), yhi = -ylo, xhi = 0;
};

curves curves_of(const store& s, const std::vector<trial_row>& rows, const tally& t, std::string_view fact) {
  curves out;
  for (auto& r : t.results) {
    auto& row = rows[static_cast<std::size_t>(r.number - rows.front().number)];
    std::vector<std::pair<std::uint64_t, double>> points;
    try {
      points = curve(s, row.run, fact);
    } catch (const no_run_error&) {
      continue; // the trial recorded nothing
    }
    std::erase_if(points, [](auto& p) { return !std::isfinite(p.second); });
    if (points.empty())
      continue;
    for (auto& [n, v] : points) {
      out.ylo = std::min(out.ylo, v);
      out.yhi = std::max(out.yhi, v);
      out.xhi = std::max(out.xhi, static_cast<double>(n));
    }
    out.of.emplace_back(row.number, std::move(points));
  }
  return out;
}

// Below: each trial's curve, overlaid; the best bold, last so it is on top.
void draw_curves(figure& f, const areas& at, const curves& c, std::uint64_t best_trial, std::string_view fact) {
  double cpad = (c.yhi - c.ylo) * 0.05;
  chart below{f, left, at.lower_top, at.right, at.lower_bottom, 0, c.xhi, c.ylo - cpad, c.yhi + cpad,
              {.whole_x = true}};
  below.x_axis("forward");
  below.y_axis(fact);
  std::optional<line> best;
  for (auto& [number, points] : c.of) {
    bool is_best = number == best_trial;
    line l{{}, is_best ? palette::mean : palette::raw, is_best ? 3.0 : 1.0, is_best ? 1.0 : 0.7,
           "trial-" + std::to_string(number)};
    for (auto& [n, v] : points)
      l.points.push_back(below.at(static_cast<double>(n), v));
    if (is_best)
      best = std::move(l);
    else
      f.add(std::move(l));
  }
  if (best)
    f.add(std::move(*best));
  below.frame();
}

} // namespace

figure study(const store& s, std::string_view name, std::string_view fact, std::string result,
             const framing& frame, std::string by) {
  check_size(frame);
  auto rows = trials(s, name);
  if (result.empty())
    result = first_numeric_result(rows);
  auto has = [&](const std::string& p) {
    return std::any_of(rows.begin(), rows.end(), [&](const trial_row& t) { return t.params.find(p); });
  };
  if (by == "trial" && !has(by))
    by.clear(); // by number, asked for
  else if (by.empty())
    by = only_parameter(rows);
  else if (!has(by)) {
    std::string names;
    for (auto& t : rows)
      for (auto& [n, v] : t.params)
        if (names.find("'" + n + "'") == std::string::npos)
          names += (names.empty() ? "'" : ", '") + n + "'";
    throw std::invalid_argument("no trial of study '" + std::string{name} + "' has a parameter '"
                                + by + "'" + (names.empty() ? "; its trials have none"
                                                            : "; its parameters are " + names));
  }
  auto t = tally_of(rows, result, by);
  if (t.results.empty())
    throw std::invalid_argument(
      "nothing to draw: no done trial of study '" + std::string{name} + "' has a finite result"
      + (result.empty() ? std::string{} : " '" + result + "'")
      + (by.empty() ? std::string{} : " and a number for '" + by + "'")
      + "; `soma trials " + std::string{name} + "` shows what each trial gave");

  auto title = title_of(frame, std::string{name} + ": " + result + (by.empty() ? " per trial" : " by " + by)
                                 + ", " + std::string{fact} + " over each trial's run");
  int width = width_of(frame, default_width), height = height_of(frame, default_height);
  figure f{width, height, title};
  auto at = areas_of(width, height);
  title_block(f, title, drawn_line(t, rows.size(), result, by));
  auto [lo, hi] = std::minmax_element(t.results.begin(), t.results.end(),
                                      [](const drawn& a, const drawn& b) { return a.value < b.value; });
  draw_results(f, at, rows, t, *lo, *hi, result, by);
  auto c = curves_of(s, rows, t, fact);
  if (!c.of.empty())
    draw_curves(f, at, c, lo->number, fact);
  else
    f.add(text{{width / 2.0, (at.lower_top + at.lower_bottom) / 2}, "no trial's run told '" + std::string{fact} + "'",
               13, align::middle, palette::faint});
  return f;
}

} // namespace soma::draw
