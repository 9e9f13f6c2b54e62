#include "soma/draw/progress.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "soma/draw/chart.hpp"
#include "soma/draw/rolling.hpp"
#include "soma/store/readers.hpp"

namespace soma::draw {

namespace {

constexpr int width = 960, height = 540;
constexpr double left = 96, top = 78, right = 930, bottom = 470;

// More points than pixels across: keep, per pixel column, the first, lowest,
// highest and last point, in order. Every kept point is a real one, and the
// line through them covers the same pixels as the line through all of them.
std::vector<point> thin(std::vector<point> ps) {
  if (ps.size() <= 4 * static_cast<std::size_t>(right - left))
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

} // namespace

figure progress(const series& values, std::string_view run, std::string_view fact,
                const progress_options& options) {
  if (values.empty())
    throw std::invalid_argument("nothing to draw: no forward of run '" + std::string{run}
                                + "' told '" + std::string{fact}
                                + "'; tell it (recorder.tell or live.tell) or name another fact");
  std::vector<double> ys;
  ys.reserve(values.size());
  for (auto& [n, v] : values) {
    if (!std::isfinite(v))
      throw std::invalid_argument("forward " + std::to_string(n) + " of run '" + std::string{run}
                                  + "' told " + std::string{fact} + " = " + std::to_string(v)
                                  + ", which cannot be drawn; a figure needs finite numbers");
    ys.push_back(v);
  }
  auto window = options.window.value_or(default_window(ys.size()));
  auto means = rolling_mean(ys, window);
  auto [lo, hi] = std::minmax_element(ys.begin(), ys.end());
  double pad = (*hi - *lo) * 0.05;

  std::string title = std::string{fact} + " over run " + std::string{run};
  figure f{width, height, title};
  std::string every = options.every > 1 ? ", every " + ordinal(options.every) + " kept" : "";
  title_block(f, title,
              std::to_string(values.size()) + " values told" + every
                + "; bold: centred rolling mean over " + std::to_string(window)
                + (window == 1 ? " value" : " values")
                + " (narrowing at the ends), thin: every value as told");
  chart c{f, left, top, right, bottom, static_cast<double>(values.front().first),
          static_cast<double>(values.back().first), *lo - pad, *hi + pad};
  c.x_axis("forward");
  c.y_axis(fact);

  std::vector<point> raw, mean;
  raw.reserve(values.size());
  mean.reserve(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    auto x = static_cast<double>(values[i].first);
    raw.push_back(c.at(x, ys[i]));
    mean.push_back(c.at(x, means[i]));
  }
  f.add(line{thin(std::move(raw)), palette::raw, 1, 0.9, "raw"});
  f.add(line{thin(std::move(mean)), palette::mean, 3, 1, "mean"});
  c.frame();

  // The legend, top right inside the area.
  double lx = right - 250, ly = top + 16;
  f.add(line{{{lx, ly}, {lx + 24, ly}}, palette::raw, 1, 0.9});
  f.add(text{{lx + 30, ly + 4}, "every value told", 11.5, align::start, palette::ink});
  f.add(line{{{lx, ly + 18}, {lx + 24, ly + 18}}, palette::mean, 3});
  f.add(text{{lx + 30, ly + 22}, "rolling mean, window " + std::to_string(window), 11.5,
             align::start, palette::ink});
  return f;
}

figure compare(const std::vector<compared>& runs, std::string_view fact) {
  // Colours far enough apart to tell six runs apart; more cycle.
  static constexpr colour hues[] = {{0.05, 0.25, 0.6}, {0.85, 0.35, 0.1}, {0.1, 0.55, 0.25},
                                    {0.55, 0.2, 0.6},  {0.6, 0.45, 0.05}, {0.1, 0.55, 0.65}};
  double lo = 0, hi = 0, first = 0, last = 0;
  bool any = false;
  std::string silent;
  for (auto& r : runs) {
    if (r.values.empty()) {
      silent += (silent.empty() ? "" : ", ") + r.run;
      continue;
    }
    for (auto& [n, v] : r.values) {
      if (!std::isfinite(v))
        throw std::invalid_argument("forward " + std::to_string(n) + " of run '" + r.run
                                    + "' told " + std::string{fact} + " = " + std::to_string(v)
                                    + ", which cannot be drawn; a figure needs finite numbers");
      auto x = static_cast<double>(n);
      if (!any) {
        lo = hi = v;
        first = last = x;
        any = true;
      }
      lo = std::min(lo, v);
      hi = std::max(hi, v);
      first = std::min(first, x);
      last = std::max(last, x);
    }
  }
  if (!any)
    throw std::invalid_argument("nothing to draw: none of the runs compared told '"
                                + std::string{fact} + "'");
  std::string title = std::string{fact} + " over " + std::to_string(runs.size()) + " runs";
  figure f{width, height, title};
  title_block(f, title,
              "bold: each run's centred rolling mean, thin: every value as told"
                + (silent.empty() ? std::string{} : "; told nothing: " + silent));
  double pad = (hi - lo) * 0.05;
  chart c{f, left, top, right, bottom, first, last, lo - pad, hi + pad};
  c.x_axis("forward");
  c.y_axis(fact);
  std::size_t k = 0;
  double ly = top + 16;
  for (auto& r : runs) {
    if (r.values.empty())
      continue;
    auto hue = hues[k++ % std::size(hues)];
    std::vector<double> ys;
    ys.reserve(r.values.size());
    for (auto& [n, v] : r.values)
      ys.push_back(v);
    auto window = default_window(ys.size());
    auto means = rolling_mean(ys, window);
    std::vector<point> raw, mean;
    for (std::size_t i = 0; i < ys.size(); ++i) {
      auto x = static_cast<double>(r.values[i].first);
      raw.push_back(c.at(x, ys[i]));
      mean.push_back(c.at(x, means[i]));
    }
    f.add(line{thin(std::move(raw)), hue, 1, 0.35, "raw-" + std::to_string(k)});
    f.add(line{thin(std::move(mean)), hue, 2.5, 1, "mean-" + std::to_string(k)});
    double lx = right - 250;
    f.add(line{{{lx, ly}, {lx + 24, ly}}, hue, 2.5});
    f.add(text{{lx + 30, ly + 4}, r.run + " (window " + std::to_string(window) + ")", 11.5,
               align::start, palette::ink});
    ly += 18;
  }
  c.frame();
  return f;
}

figure progress(const store& s, std::string_view run, std::string_view fact,
                const progress_options& options) {
  auto values = curve(s, run, fact);
  if (values.empty())
    throw store_error("no forward of run '" + std::string{run} + "' told '" + std::string{fact}
                      + "'; `soma facts " + std::string{run}
                      + " 0` shows what a forward told");
  return progress(values, run, fact, options);
}

} // namespace soma::draw
