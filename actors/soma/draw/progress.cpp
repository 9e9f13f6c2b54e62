#include "soma/draw/progress.hpp"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

#include "soma/draw/chart.hpp"
#include "soma/draw/rolling.hpp"
#include "soma/store/readers.hpp"

namespace soma::draw {

namespace {

constexpr int default_width = 960, default_height = 540;
constexpr double top = 78;

// The legend sits below the area, under the x axis' label, its entries side
// by side and a new row when the next would pass the area's right edge.
// Outside the area it covers no point whatever the series do or a zoom
// shows (a legend in the corner the series crossed least still covered a
// zoomed curve: issue 26, item 3). A swatch and a text per entry, both
// named "legend" in the SVG.
struct legend_entry {
  colour hue;
  double width, opacity;
  std::string text;
};

constexpr double legend_size = 11.5, swatch = 24, swatch_gap = 6, entry_gap = 18;
constexpr double legend_row = 18; // between rows' baselines
constexpr double legend_below = 56; // from the area's bottom to the first row's swatch

double entry_width(const legend_entry& e) {
  return swatch + swatch_gap + text_width(e.text, legend_size);
}

// Calls place(entry, x, row) for each entry flowed from `left` to `right`;
// returns the rows taken.
template <class Place>
std::size_t flow(const std::vector<legend_entry>& entries, double left, double right, Place place) {
  double x = left;
  std::size_t row = 0;
  for (auto& e : entries) {
    auto w = entry_width(e);
    if (x > left && x + w > right) {
      x = left;
      ++row;
    }
    place(e, x, row);
    x += w + entry_gap;
  }
  return entries.empty() ? 0 : row + 1;
}

// Where the area may go in a figure of `width` x `height` with a legend of
// `entries` below it (the chart moves its left edge further right when its
// labels need the room; the legend flows from the left the layout gives).
struct layout {
  double left = 96, right, bottom;
  layout(int width, int height, const std::vector<legend_entry>& entries)
    : right(width - 30),
      bottom(height - 70) {
    auto rows = flow(entries, left, right, [](auto&, double, std::size_t) {});
    // The last row's baseline 22 px above the figure's edge; the area keeps
    // at least 60 px (a figure at its least size with 8 series' legend
    // gives up the legend's last rows rather than its chart).
    if (rows > 0)
      bottom = std::max(top + 60, height - 22 - 4 - legend_below
                                    - legend_row * static_cast<double>(rows - 1));
  }
};

void legend(figure& f, const chart& c, const layout& at, const std::vector<legend_entry>& entries) {
  flow(entries, at.left, at.right, [&](const legend_entry& e, double x, std::size_t row) {
    double y = c.bottom() + legend_below + legend_row * static_cast<double>(row);
    f.add(line{{{x, y}, {x + swatch, y}}, e.hue, e.width, e.opacity, "legend"});
    f.add(text{{x + swatch + swatch_gap, y + 4}, e.text, legend_size, align::start, palette::ink,
               false, 0, "legend"});
  });
}

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
// With `xs` (one per value), the kept values' x go to `xs_kept`.
series drawable(const series& values, bool log_y, std::size_t& skipped,
                const std::vector<double>* xs = nullptr, std::vector<double>* xs_kept = nullptr) {
  if (!log_y) {
    if (xs)
      *xs_kept = *xs;
    return values;
  }
  series out;
  for (std::size_t i = 0; i < values.size(); ++i)
    if (values[i].second > 0) {
      out.push_back(values[i]);
      if (xs)
        xs_kept->push_back((*xs)[i]);
    } else {
      ++skipped;
    }
  return out;
}

// Each value's x on a forward axis: its forward.
std::vector<double> forwards_of(const series& values) {
  std::vector<double> xs;
  xs.reserve(values.size());
  for (auto& p : values)
    xs.push_back(static_cast<double>(p.first));
  return xs;
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
  bool whole_x = true; // x counts forwards (else seconds)
  void take(const series& values, const std::vector<double>& xs) {
    for (std::size_t i = 0; i < values.size(); ++i) {
      auto x = xs[i];
      auto v = values[i].second;
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
                 {.whole_x = whole_x, .log_y = log_y}};
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
void draw_series(figure& f, const chart& c, const series& values, const std::vector<double>& xs,
                 std::size_t window, const look& how) {
  std::vector<double> ys;
  ys.reserve(values.size());
  for (auto& p : values)
    ys.push_back(p.second);
  auto means = rolling_mean(ys, window);
  std::vector<point> raw, mean;
  raw.reserve(values.size());
  mean.reserve(means.size());
  for (std::size_t i = 0; i < values.size(); ++i)
    raw.push_back(c.at(xs[i], ys[i]));
  for (std::size_t j = 0; j < means.size(); ++j)
    mean.push_back(c.at(xs[j + window / 2], means[j]));
  auto columns = c.right() - c.left();
  f.add(line{thin(std::move(raw), columns), how.raw, 1, how.raw_opacity, how.raw_name});
  f.add(line{thin(std::move(mean), columns), how.mean, how.mean_width, 1, how.mean_name});
  if (values.size() == 1) {
    auto p = c.at(xs[0], ys[0]);
    f.add(box{p.x - 4, p.y - 4, 8, 8, how.mean, std::nullopt, 4, how.point_name});
  }
}

std::string values_word(std::size_t n) { return n == 1 ? " value" : " values"; }

// Colours far enough apart to tell six compared series apart; more cycle.
constexpr colour hues[] = {{0.05, 0.25, 0.6}, {0.85, 0.35, 0.1}, {0.1, 0.55, 0.25},
                           {0.55, 0.2, 0.6},  {0.6, 0.45, 0.05}, {0.1, 0.55, 0.65}};

// The fact `c` compares: its own, else `fact`.
std::string fact_of(const compared& c, std::string_view fact) {
  return c.fact.empty() ? std::string{fact} : c.fact;
}

// `xs` joined by ", ".
std::string joined(const std::vector<std::string>& xs) {
  std::string out;
  for (auto& x : xs)
    out += (out.empty() ? "" : ", ") + x;
  return out;
}

// The facts and the runs that `runs` compare, each once, in order.
void distinct(const std::vector<compared>& runs, std::string_view fact,
              std::vector<std::string>& facts, std::vector<std::string>& names) {
  for (auto& r : runs) {
    auto of = fact_of(r, fact);
    if (std::find(facts.begin(), facts.end(), of) == facts.end())
      facts.push_back(of);
    if (std::find(names.begin(), names.end(), r.run) == names.end())
      names.push_back(r.run);
  }
}

// What the series of `r` is called: its label, else its run, with its fact
// when the series are of more than one (`by_fact`).
std::string name_of(const compared& r, std::string_view fact, bool by_fact) {
  auto run = r.label.empty() ? r.run : r.label;
  return by_fact ? run + "/" + fact_of(r, fact) : run;
}

// Where each execution after the first began: a line across the chart at
// its forward, and who and when beside it, so that values of two programs
// are never read as one.
constexpr colour execution_hue{0.75, 0.12, 0.12};

// Where execution `e` began on the x axis: its forward, or on a time axis
// (`t0_us`: the first value's time) its seconds since the first value.
// Nothing when it began outside what is drawn (`xs`), or its time is not
// known on a time axis.
std::optional<double> begun_at(const execution& e, const std::vector<double>& xs,
                               std::optional<std::int64_t> t0_us) {
  if (xs.empty())
    return std::nullopt;
  if (t0_us && e.began_us == 0)
    return std::nullopt;
  double x = t0_us ? static_cast<double>(e.began_us - *t0_us) / 1e6 : static_cast<double>(e.forward);
  if (x < xs.front() || x > xs.back())
    return std::nullopt;
  return x;
}

void draw_executions(figure& f, const chart& c, const std::vector<execution>& runs,
                     const std::vector<double>& xs, std::optional<std::int64_t> t0_us) {
  constexpr auto red = execution_hue;
  for (std::size_t i = 1; i < runs.size(); ++i) {
    auto& e = runs[i];
    auto at = begun_at(e, xs, t0_us);
    if (!at)
      continue;
    auto x = c.at(*at, 0).x;
    f.add(line{{{x, c.top()}, {x, c.bottom()}}, red, 1.5, 0.9, "execution"});
    std::string label = "execution " + std::to_string(i + 1);
    if (!e.host.empty())
      label += ": " + e.host + (e.pid ? " pid " + std::to_string(e.pid) : "");
    if (e.began_us) {
      auto t = static_cast<std::time_t>(detail::seconds_of(e.began_us));
      std::tm at{};
      gmtime_r(&t, &at);
      char buf[32];
      std::strftime(buf, sizeof buf, " %Y-%m-%d %H:%M:%SZ", &at);
      label += buf;
    }
    // Beside the line, on the side with room for it (about 6.2 px a
    // character at 11 px).
    bool left = x + 4 + 6.2 * static_cast<double>(label.size()) > c.right();
    f.add(text{{left ? x - 4 : x + 4, c.top() + 12 + 13 * static_cast<double>((i - 1) % 3)}, label,
               11, left ? align::end : align::start, red, false, 0, "execution"});
  }
}

} // namespace

figure progress(const series& told, std::string_view run, std::string_view fact,
                const progress_options& options) {
  if (told.empty())
    throw std::invalid_argument("nothing to draw: no forward of run '" + std::string{run}
                                + "' told '" + std::string{fact}
                                + "'; tell it (recorder.tell or live.tell) or name another fact");
  check_finite(told, run, fact);
  check_size(options.frame);
  bool timed = !options.when_us.empty();
  if (timed && options.when_us.size() != told.size())
    throw std::invalid_argument("a time axis needs one time per value: " + std::to_string(told.size())
                                + " values, " + std::to_string(options.when_us.size()) + " times");
  std::optional<std::int64_t> t0_us;
  std::vector<double> all_xs;
  if (timed) {
    t0_us = options.when_us.front();
    for (auto when : options.when_us)
      all_xs.push_back(static_cast<double>(when - *t0_us) / 1e6);
  } else {
    all_xs = forwards_of(told);
  }
  std::size_t skipped = 0;
  std::vector<double> xs;
  auto values = drawable(told, options.log_y, skipped, &all_xs, &xs);
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
  std::vector<legend_entry> entries{
    {palette::raw, 1, 0.9, "every value told"},
    {palette::mean, 3, 1, "rolling mean, window " + std::to_string(window)}};
  if (std::any_of(options.executions.begin() + std::min<std::size_t>(1, options.executions.size()),
                  options.executions.end(),
                  [&](const execution& e) { return begun_at(e, xs, t0_us).has_value(); }))
    entries.push_back({execution_hue, 1.5, 0.9, "a later execution began"});
  ranges r;
  r.whole_x = !timed;
  r.take(values, xs);
  layout at{f.width(), f.height(), entries};
  auto c = r.place(f, at, options.log_y);
  c.x_axis(timed ? "seconds since the first value" : "forward");
  c.y_axis(fact);
  draw_series(f, c, values, xs, window,
              {palette::raw, palette::mean, 0.9, 3, "raw", "mean", "point"});
  draw_executions(f, c, options.executions, xs, t0_us);
  c.frame();
  legend(f, c, at, entries);
  return f;
}

std::vector<std::string> labels_by_params(const std::vector<std::string>& runs,
                                          const std::vector<values>& params) {
  std::vector<std::string> labels;
  for (auto& p : params)
    labels.push_back(p.empty() ? std::string{} : p.text());
  auto same = labels;
  for (std::size_t i = 0; i < labels.size() && i < runs.size(); ++i)
    if (!same[i].empty() && std::count(same.begin(), same.end(), same[i]) > 1)
      labels[i] += " (" + runs[i] + ")";
  return labels;
}

figure compare(const std::vector<compared>& runs, std::string_view fact,
               const compare_options& options) {
  check_size(options.frame);
  if (options.window)
    check_window(*options.window);
  std::vector<std::string> facts, names;
  distinct(runs, fact, facts, names);
  bool by_fact = facts.size() > 1;

  std::size_t skipped = 0;
  std::vector<series> shown;
  std::vector<std::vector<double>> xs; // each shown value's forward
  ranges range;
  std::string silent;
  for (auto& r : runs) {
    check_finite(r.values, r.run, fact_of(r, fact));
    shown.push_back(drawable(r.values, options.log_y, skipped));
    if (shown.back().empty())
      silent += (silent.empty() ? "" : ", ") + name_of(r, fact, by_fact);
    xs.push_back(forwards_of(shown.back()));
    range.take(shown.back(), xs.back());
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
  // Each drawn series' colour and window, named in the legend below the area.
  std::vector<legend_entry> entries;
  std::vector<std::size_t> windows(runs.size());
  for (std::size_t i = 0; i < runs.size(); ++i) {
    if (shown[i].empty())
      continue;
    windows[i] = fitting_window(options.window.value_or(default_window(shown[i].size())),
                                shown[i].size());
    entries.push_back({hues[entries.size() % std::size(hues)], 2.5, 1,
                       name_of(runs[i], fact, by_fact) + " (window "
                         + std::to_string(windows[i]) + ")"});
  }
  layout at{f.width(), f.height(), entries};
  auto c = range.place(f, at, options.log_y);
  c.x_axis("forward");
  c.y_axis(by_fact ? joined(facts) : fact_of(runs.front(), fact));
  std::size_t k = 0;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    if (shown[i].empty())
      continue;
    auto hue = entries[k++].hue;
    auto n = std::to_string(k);
    draw_series(f, c, shown[i], xs[i], windows[i],
                {hue, hue, 0.35, 2.5, "raw-" + n, "mean-" + n, "point-" + n});
  }
  c.frame();
  legend(f, c, at, entries);
  return f;
}

timed_values timed_curve(const store& s, std::string_view run, std::string_view fact,
                         curve_cost* took) {
  auto c = curve_series(s, run, fact, took);
  if (c.when_us.size() != c.value.size())
    throw store_error("the store serving run '" + std::string{run} + "' sends no times (a soma "
                      "before 0.5): draw it against the forward number", store_trouble::refused);
  timed_values out;
  out.values.reserve(c.value.size());
  for (std::size_t i = 0; i < c.value.size(); ++i)
    out.values.emplace_back(c.forward[i], c.value[i]);
  out.when_us = std::move(c.when_us);
  return out;
}

figure progress(const store& s, std::string_view run, std::string_view fact,
                const progress_options& options, x_axis x) {
  series values;
  auto with = options;
  if (x == x_axis::time) {
    auto timed = timed_curve(s, run, fact);
    values = std::move(timed.values);
    with.when_us = std::move(timed.when_us);
  } else {
    values = curve(s, run, fact);
  }
  if (values.empty())
    throw store_error("no forward of run '" + std::string{run} + "' told '" + std::string{fact}
                      + "'; `soma facts " + std::string{run}
                      + " 0` shows what a forward told", store_trouble::missing);
  if (with.executions.empty()) {
    try {
      with.executions = run_summary(s, run).executions;
    } catch (const store_error&) {
      // Its metadata cannot be read (damage, soma check says where): the
      // curve is drawn all the same, without where executions began.
    }
  }
  return progress(values, run, fact, with);
}

} // namespace soma::draw
