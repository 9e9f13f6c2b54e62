#include "soma/draw/chart.hpp"

#include <cmath>
#include <cstdio>

namespace soma::draw {

time_unit unit_for(double max_us) {
  if (max_us < 10'000)
    return {"µs", 1};
  if (max_us < 10'000'000)
    return {"ms", 1'000};
  return {"s", 1'000'000};
}

std::string short_number(double v) {
  char buf[32];
  if (v == std::round(v) && std::fabs(v) < 1e15)
    std::snprintf(buf, sizeof buf, "%.0f", v);
  else if (std::fabs(v) >= 0.001)
    std::snprintf(buf, sizeof buf, "%.4g", v);
  else
    std::snprintf(buf, sizeof buf, "%.2g", v);
  return buf;
}

void title_block(figure& f, std::string_view title, std::string_view subtitle) {
  f.add(text{{24, 30}, std::string{title}, 17, align::start, palette::ink, true});
  if (!subtitle.empty())
    f.add(text{{24, 50}, std::string{subtitle}, 11.5, align::start, palette::faint});
}

std::vector<double> ticks(double lo, double hi, int target) {
  std::vector<double> out;
  if (!(hi > lo) || target < 1)
    return {lo};
  double raw = (hi - lo) / target;
  double mag = std::pow(10, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0})
    if (m * mag >= raw) {
      step = m * mag;
      break;
    }
  for (double v = std::ceil(lo / step - 1e-9) * step; v <= hi + step * 1e-9; v += step)
    out.push_back(std::fabs(v) < step * 1e-9 ? 0 : v);
  return out;
}

chart::chart(figure& f, double left, double top, double right, double bottom, double x_lo,
             double x_hi, double y_lo, double y_hi)
  : f_(f), left_(left), top_(top), right_(right), bottom_(bottom), x_lo_(x_lo), x_hi_(x_hi),
    y_lo_(y_lo), y_hi_(y_hi) {
  auto widen = [](double& lo, double& hi) {
    if (hi > lo)
      return;
    double pad = lo == 0 ? 1 : std::fabs(lo) * 0.1;
    lo -= pad;
    hi += pad;
  };
  widen(x_lo_, x_hi_);
  widen(y_lo_, y_hi_);
  f.set_area({left_, top_, right_, bottom_, x_lo_, x_hi_, y_lo_, y_hi_});
}

point chart::at(double x, double y) const noexcept {
  return {left_ + (x - x_lo_) / (x_hi_ - x_lo_) * (right_ - left_),
          bottom_ - (y - y_lo_) / (y_hi_ - y_lo_) * (bottom_ - top_)};
}

void chart::x_axis(std::string_view label) {
  for (double v : ticks(x_lo_, x_hi_, std::max(2, static_cast<int>((right_ - left_) / 110)))) {
    double x = at(v, y_lo_).x;
    f_.add(line{{{x, top_}, {x, bottom_}}, palette::grid, 1});
    f_.add(text{{x, bottom_ + 16}, short_number(v), 11, align::middle, palette::faint});
  }
  f_.add(text{{(left_ + right_) / 2, bottom_ + 36}, std::string{label}, 12.5, align::middle,
               palette::ink});
}

void chart::y_axis(std::string_view label) {
  for (double v : ticks(y_lo_, y_hi_, std::max(2, static_cast<int>((bottom_ - top_) / 60)))) {
    double y = at(x_lo_, v).y;
    f_.add(line{{{left_, y}, {right_, y}}, palette::grid, 1});
    f_.add(text{{left_ - 8, y + 4}, short_number(v), 11, align::end, palette::faint});
  }
  f_.add(text{{left_ - 56, (top_ + bottom_) / 2}, std::string{label}, 12.5, align::middle,
               palette::ink, false, -90});
}

void chart::frame() {
  f_.add(line{{{left_, top_}, {left_, bottom_}, {right_, bottom_}}, palette::ink, 1});
}

} // namespace soma::draw
