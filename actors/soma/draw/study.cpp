#include "soma/draw/study.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>
#include <vector>

#include "soma/draw/chart.hpp"
#include "soma/store/readers.hpp"
#include "soma/store/trials.hpp"

namespace soma::draw {

namespace {

constexpr int default_width = 960, default_height = 760;
constexpr double left = 96;

// The trial's result `name` as a number, when it has one.
std::optional<double> number_of(const trial_row& t, const std::string& name) {
  auto* v = t.result.find(name);
  if (!v)
    return std::nullopt;
  if (auto* d = std::get_if<double>(v))
    return *d;
  if (auto* i = std::get_if<std::int64_t>(v))
    return static_cast<double>(*i);
  return std::nullopt;
}

} // namespace

figure study(const store& s, std::string_view name, std::string_view fact, std::string result,
             const framing& frame) {
  check_size(frame);
  auto rows = trials(s, name);
  if (result.empty())
    for (auto& t : rows)
      if (t.state == trial_state::done)
        for (auto& [n, v] : t.result)
          if (result.empty() && (std::holds_alternative<double>(v) || std::holds_alternative<std::int64_t>(v)))
            result = n;
  struct drawn {
    std::uint64_t number;
    double value;
  };
  std::vector<drawn> results;
  std::size_t not_done = 0, broke = 0, without = 0;
  for (auto& t : rows) {
    if (t.state == trial_state::broke)
      ++broke;
    else if (t.state != trial_state::done)
      ++not_done;
    else if (auto v = number_of(t, result); v && std::isfinite(*v))
      results.push_back({t.number, *v});
    else
      ++without;
  }
  if (results.empty())
    throw std::invalid_argument(
      "nothing to draw: no done trial of study '" + std::string{name} + "' has a finite result"
      + (result.empty() ? std::string{} : " '" + result + "'")
      + "; `soma trials " + std::string{name} + "` shows what each trial gave");

  auto title = title_of(frame, std::string{name} + ": " + result + " per trial, "
                                 + std::string{fact} + " over each trial's run");
  int width = width_of(frame, default_width), height = height_of(frame, default_height);
  figure f{width, height, title};
  // The two charts share the height below the title block: the results
  // above, the curves below, each with its axis labels under it.
  double right = width - 30, plotted = std::max(40.0, height - 238.0);
  double upper_bottom = 78 + plotted * 0.48, lower_top = upper_bottom + 90;
  double lower_bottom = lower_top + plotted * 0.52;
  std::string left_out;
  auto say = [&](std::size_t n, const char* why) {
    if (n)
      left_out += ", " + std::to_string(n) + " " + why;
  };
  say(not_done, "waiting or claimed");
  say(broke, "broke");
  say(without, ("without " + result).c_str());
  title_block(f, title, std::to_string(results.size()) + " of " + std::to_string(rows.size())
                          + " trials drawn" + (left_out.empty() ? "" : " (not drawn:" + left_out.substr(1) + ")")
                          + "; below, bold: the lowest " + result);

  // Above: the result of each trial.
  auto [lo, hi] = std::minmax_element(results.begin(), results.end(),
                                      [](const drawn& a, const drawn& b) { return a.value < b.value; });
  double pad = (hi->value - lo->value) * 0.08;
  auto first = static_cast<double>(rows.front().number), last = static_cast<double>(rows.back().number);
  chart top{f, left, 78, right, upper_bottom, first, last, lo->value - pad, hi->value + pad,
            {.whole_x = true}};
  top.x_axis("trial");
  top.y_axis(result);
  for (auto& r : results) {
    auto p = top.at(static_cast<double>(r.number), r.value);
    f.add(box{p.x - 3.5, p.y - 3.5, 7, 7, r.number == lo->number ? palette::mean : palette::raw,
              std::nullopt, 3.5, "result"});
  }
  top.frame();

  // Below: each trial's curve, overlaid; the best bold, last so it is on top.
  std::vector<std::pair<std::uint64_t, std::vector<std::pair<std::uint64_t, double>>>> curves;
  double ylo = std::numeric_limits<double>::infinity(), yhi = -ylo, xhi = 0;
  for (auto& r : results) {
    auto& t = rows[static_cast<std::size_t>(r.number - rows.front().number)];
    std::vector<std::pair<std::uint64_t, double>> points;
    try {
      points = curve(s, t.run, fact);
    } catch (const no_run_error&) {
      continue; // the trial recorded nothing
    }
    std::erase_if(points, [](auto& p) { return !std::isfinite(p.second); });
    if (points.empty())
      continue;
    for (auto& [n, v] : points) {
      ylo = std::min(ylo, v);
      yhi = std::max(yhi, v);
      xhi = std::max(xhi, static_cast<double>(n));
    }
    curves.emplace_back(t.number, std::move(points));
  }
  if (!curves.empty()) {
    double cpad = (yhi - ylo) * 0.05;
    chart below{f, left, lower_top, right, lower_bottom, 0, xhi, ylo - cpad, yhi + cpad,
                {.whole_x = true}};
    below.x_axis("forward");
    below.y_axis(fact);
    std::optional<line> best;
    for (auto& [number, points] : curves) {
      line l{{}, number == lo->number ? palette::mean : palette::raw, number == lo->number ? 3.0 : 1.0,
             number == lo->number ? 1.0 : 0.7, "trial-" + std::to_string(number)};
      for (auto& [n, v] : points)
        l.points.push_back(below.at(static_cast<double>(n), v));
      if (number == lo->number)
        best = std::move(l);
      else
        f.add(std::move(l));
    }
    if (best)
      f.add(std::move(*best));
    below.frame();
  } else {
    f.add(text{{width / 2.0, (lower_top + lower_bottom) / 2}, "no trial's run told '" + std::string{fact} + "'", 13,
               align::middle, palette::faint});
  }
  return f;
}

} // namespace soma::draw
