#include "soma/draw/progress.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <stdexcept>
#include <string>

#include "soma/draw/chart.hpp"
#include "soma/draw/rolling.hpp"
#include "soma/store/readers.hpp"

namespace soma::draw {

namespace {

constexpr int default_width = 960, default_height = 540;
constexpr double top = 78;

// Where the area may go in a figure of `width` x `height` (the chart moves
// its left edge further right when its labels need the room).
struct layout {
  double left = 96, right, bottom;
  layout(int width, int height) : right(width - 30), bottom(height - 70) {}
};

// More points than pixels across: keep, per pixel column, the first, lowest,
// highest and last point, in order. Every kept point is a real one, and the
// line through them covers the same pixels as the line through all of them.
std::vector<point> thin(std::vector<point> ps, double columns) {
  if (ps.size() <= 4 * static_cast<std::size_t>(columns))
    return ps;
  std::vector<point> out;
  std::size_t i = 0;
  while (i < ps.size()) {
    auto column = std::floor(ps[i].x);
    auto j = i;
    auto lo = i, hi = i;
    for (; j < ps.size() && std::floor(ps[j].x) == column; ++j) {
      if (ps[j].y < ps[lo].y)
        lo = j;
      if (ps[j].y > ps[hi].y)
        hi = j;
    }
    std::size_t keep[] = {i, std::min(lo, hi), std::max(lo, hi), j - 1};
    for (std::size_t k = 0; k < 4; ++k)
      if (k == 0 || keep[k] != keep[k - 1])
        out.push_back(ps[keep[k]]);
    i = j;
  }
  return out;
}

std::string ordinal(std::size_t n) {
  auto tens = n % 100, ones = n % 10;
  const char* suffix = (tens >= 11 && tens <= 13) ? "th" : ones == 1 ? "st" : ones == 2 ? "nd"
                                                                      : ones == 3 ? "rd" : "th";
  return std::to_string(n) + suffix;
}

void check_finite(const series& values, std::string_view run, std::string_view fact) {
  for (auto& [n, v] : values)
    if (!std::isfinite(v))
      throw std::invalid_argument("forward " + std::to_string(n) + " of run '" + std::string{run}
                                  + "' told " + std::string{fact} + " = " + std::to_string(v)
                                  + ", which cannot be drawn; a figure needs finite numbers");
}

// The values a log axis can show (above 0); `skipped` counts the others.
series drawable(const series& values, bool log_y, std::size_t& skipped) {
  if (!log_y)
    return values;
  series out;
  for (auto& p : values)
    if (p.second > 0)
      out.push_back(p);
    else
      ++skipped;
  return out;
}

std::string skipped_note(std::size_t skipped) {
  if (skipped == 0)
    return {};
  return "; " + std::to_string(skipped) + (skipped == 1 ? " value" : " values")
         + " of 0 or less not drawn on the log axis";
}

// The x and y ranges of the series, the y padded by 5 % on a linear axis.
struct ranges {
  double x_lo = 0, x_hi = 0, y_lo = 0, y_hi = 0;
  bool any = false;
  void take(const series& values) {
    for (auto& [n, v] : values) {
      auto x = static_cast<double>(n);
      if (!any) {
        x_lo = x_hi = x;
        y_lo = y_hi = v;
        any = true;
      }
      x_lo = std::min(x_lo, x);
      x_hi = std::max(x_hi, x);
      y_lo = std::min(y_lo, v);
      y_hi = std::max(y_hi, v);
    }
  }
  chart place(figure& f, const layout& at, bool log_y) const {
    double pad = log_y ? 0 : (y_hi - y_lo) * 0.05;
    return chart{f, at.left, top, at.right, at.bottom, x_lo, x_hi, y_lo - pad, y_hi + pad,
                 {.whole_x = true, .log_y = log_y}};
  }
};

// How one series is drawn: its colours, widths and SVG names.
struct look {
  colour raw, mean;
  double raw_opacity, mean_width;
  std::string raw_name, mean_name, point_name;
};

// Draws `values` on `c`: every value thin, the rolling mean over `window`
// bold where its window is full (rolling.hpp says why), and a dot for a
// series of one point, which a line alone would not show.
void draw_series(figure& f, const chart& c, const series& values, std::size_t window,
                 const look& how) {
  std::vector<double> ys;
  ys.reserve(values.size());
  for (auto& p : values)
    ys.push_back(p.second);
  auto means = rolling_mean(ys, window);
  std::vector<point> raw, mean;
  raw.reserve(values.size());
  mean.reserve(means.size());
  for (std::size_t i = 0; i < values.size(); ++i)
    raw.push_back(c.at(static_cast<double>(values[i].first), ys[i]));
  for (std::size_t j = 0; j < means.size(); ++j)
    mean.push_back(c.at(static_cast<double>(values[j + window / 2].first), means[j]));
  auto columns = c.right() - c.left();
  f.add(line{thin(std::move(raw), columns), how.raw, 1, how.raw_opacity, how.raw_name});
  f.add(line{thin(std::move(mean), columns), how.mean, how.mean_width, 1, how.mean_name});
  if (values.size() == 1) {
    auto p = c.at(static_cast<double>(values[0].first), ys[0]);
    f.add(box{p.x - 4, p.y - 4, 8, 8, how.mean, std::nullopt, 4, how.point_name});
  }
}

// Whether the segment from a to b crosses the box at `at`, w by h
// (Liang-Barsky: the part of the segment inside each edge's half-plane).
bool crosses(point a, point b, point at, double w, double h) {
  double t0 = 0, t1 = 1, dx = b.x - a.x, dy = b.y - a.y;
  auto inside = [&](double p, double q) { // where p * t <= q
    if (p == 0)
      return q >= 0;
    double r = q / p;
    if (p < 0)
      t0 = std::max(t0, r);
    else
      t1 = std::min(t1, r);
    return t0 <= t1;
  };
  return inside(-dx, a.x - at.x) && inside(dx, at.x + w - a.x) && inside(-dy, a.y - at.y)
         && inside(dy, at.y + h - a.y);
}

// A legend inside the area, in the corner its series cross least: top
// right, else top left, bottom right, bottom left, the first of those that
// the fewest of the series' segments cross (a rising curve leaves the top
// left free, a falling one the top right). A swatch and a text per entry.
struct legend_entry {
  colour hue;
  double width, opacity;
  std::string text;
};

void legend(figure& f, const chart& c, const std::vector<legend_entry>& entries,
            const std::vector<const series*>& drawn) {
  double widest = 0;
  for (auto& e : entries)
    widest = std::max(widest, text_width(e.text, 11.5));
  double w = 30 + widest + 12, h = 18.0 * static_cast<double>(entries.size()) + 6, inset = 8;
  double left = c.left() + inset, right = std::max(left, c.right() - inset - w);
  double top = c.top() + inset, bottom = std::max(top, c.bottom() - inset - h);
  const point corners[] = {{right, top}, {left, top}, {right, bottom}, {left, bottom}};
  std::size_t under[std::size(corners)] = {};
  for (auto* values : drawn)
    for (std::size_t i = 0; i < values->size(); ++i) {
      auto& [n, v] = (*values)[i];
      auto p = c.at(static_cast<double>(n), v);
      auto from = i == 0 ? p : c.at(static_cast<double>((*values)[i - 1].first), (*values)[i - 1].second);
      for (std::size_t k = 0; k < std::size(corners); ++k)
        under[k] += crosses(from, p, corners[k], w, h);
    }
  auto best = static_cast<std::size_t>(std::min_element(std::begin(under), std::end(under))
                                       - std::begin(under));
  double lx = corners[best].x + 6, ly = corners[best].y + 12;
  for (auto& e : entries) {
    f.add(line{{{lx, ly}, {lx + 24, ly}}, e.hue, e.width, e.opacity});
    f.add(text{{lx + 30, ly + 4}, e.text, 11.5, align::start, palette::ink});
    ly += 18;
  }
}

std::string values_word(std::size_t n) { return n == 1 ? " value" : " values"; }

} // namespace

figure progress(const series& told, std::string_view run, std::string_view fact,
                const progress_options& options) {
  if (told.empty())
    throw std::invalid_argument("nothing to draw: no forward of run '" + std::string{run}
                                + "' told '" + std::string{fact}
                                + "'; tell it (recorder.tell or live.tell) or name another fact");
  check_finite(told, run, fact);
  check_size(options.frame);
  std::size_t skipped = 0;
  auto values = drawable(told, options.log_y, skipped);
  if (values.empty())
    throw std::invalid_argument("nothing to draw on a log axis: every value of '" + std::string{fact}
                                + "' in run '" + std::string{run}
                                + "' is 0 or less; draw it without --log-y (log_y)");
  auto asked = options.window.value_or(default_window(values.size()));
  check_window(asked);
  auto window = fitting_window(asked, values.size());

  auto title = title_of(options.frame, std::string{fact} + " over run " + std::string{run});
  figure f{width_of(options.frame, default_width), height_of(options.frame, default_height), title};
  std::string every = options.every > 1 ? ", every " + ordinal(options.every) + " kept" : "";
  std::string narrowed = window < asked ? " (" + std::to_string(asked) + " asked: wider than the run)"
                                        : "";
  title_block(f, title,
              std::to_string(told.size()) + values_word(told.size()) + " told" + every
                + "; bold: centred rolling mean over " + std::to_string(window)
                + values_word(window) + narrowed
                + ", where its window is full; thin: every value as told"
                + skipped_note(skipped));
  ranges r;
  r.take(values);
  auto c = r.place(f, layout{f.width(), f.height()}, options.log_y);
  c.x_axis("forward");
  c.y_axis(fact);
  draw_series(f, c, values, window,
              {palette::raw, palette::mean, 0.9, 3, "raw", "mean", "point"});
  c.frame();
  legend(f, c,
         {{palette::raw, 1, 0.9, "every value told"},
          {palette::mean, 3, 1, "rolling mean, window " + std::to_string(window)}},
         {&values});
  return f;
}

figure compare(const std::vector<compared>& runs, std::string_view fact,
               const compare_options& options) {
  // Colours far enough apart to tell six series apart; more cycle.
  static constexpr colour hues[] = {{0.05, 0.25, 0.6}, {0.85, 0.35, 0.1}, {0.1, 0.55, 0.25},
                                    {0.55, 0.2, 0.6},  {0.6, 0.45, 0.05}, {0.1, 0.55, 0.65}};
  check_size(options.frame);
  if (options.window)
    check_window(*options.window);
  auto fact_of = [&](const compared& c) { return c.fact.empty() ? std::string{fact} : c.fact; };
  std::vector<std::string> facts, names;
  for (auto& r : runs) {
    auto of = fact_of(r);
    if (std::find(facts.begin(), facts.end(), of) == facts.end())
      facts.push_back(of);
    if (std::find(names.begin(), names.end(), r.run) == names.end())
      names.push_back(r.run);
  }
  auto joined = [](const std::vector<std::string>& xs) {
    std::string out;
    for (auto& x : xs)
      out += (out.empty() ? "" : ", ") + x;
    return out;
  };
  bool by_fact = facts.size() > 1;
  auto name_of = [&](const compared& r) {
    auto run = r.label.empty() ? r.run : r.label;
    return by_fact ? run + "/" + fact_of(r) : run;
  };

  std::size_t skipped = 0;
  std::vector<series> shown;
  ranges range;
  std::string silent;
  for (auto& r : runs) {
    check_finite(r.values, r.run, fact_of(r));
    shown.push_back(drawable(r.values, options.log_y, skipped));
    if (shown.back().empty())
      silent += (silent.empty() ? "" : ", ") + name_of(r);
    range.take(shown.back());
  }
  if (!range.any)
    throw std::invalid_argument(
      options.log_y && skipped > 0
        ? "nothing to draw on a log axis: every value compared is 0 or less; draw it without "
          "--log-y (log_y)"
        : "nothing to draw: none of the runs compared told '" + joined(facts) + "'");
  std::string title = title_of(
    options.frame, joined(facts) + " over "
                     + (names.size() == 1 ? "run " + names[0]
                                          : std::to_string(names.size()) + " runs"));
  figure f{width_of(options.frame, default_width), height_of(options.frame, default_height), title};
  title_block(f, title,
              "bold: each series' centred rolling mean where its window is full, thin: every "
              "value as told"
                + skipped_note(skipped)
                + (silent.empty() ? std::string{} : "; told nothing: " + silent));
  auto c = range.place(f, layout{f.width(), f.height()}, options.log_y);
  c.x_axis("forward");
  c.y_axis(by_fact ? joined(facts) : std::string{fact_of(runs.front())});
  std::vector<legend_entry> entries;
  std::size_t k = 0;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    if (shown[i].empty())
      continue;
    auto hue = hues[k++ % std::size(hues)];
    auto window = fitting_window(options.window.value_or(default_window(shown[i].size())),
                                 shown[i].size());
    auto n = std::to_string(k);
    draw_series(f, c, shown[i], window, {hue, hue, 0.35, 2.5, "raw-" + n, "mean-" + n, "point-" + n});
    entries.push_back({hue, 2.5, 1, name_of(runs[i]) + " (window " + std::to_string(window) + ")"});
  }
  c.frame();
  std::vector<const series*> drawn;
  for (auto& values : shown)
    drawn.push_back(&values);
  legend(f, c, entries, drawn);
  return f;
}

figure progress(const store& s, std::string_view run, std::string_view fact,
                const progress_options& options) {
  auto values = curve(s, run, fact);
  if (values.empty())
    throw store_error("no forward of run '" + std::string{run} + "' told '" + std::string{fact}
                      + "'; `soma facts " + std::string{run}
                      + " 0` shows what a forward told", store_trouble::missing);
  return progress(values, run, fact, options);
}

} // namespace soma::draw
