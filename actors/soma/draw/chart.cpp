#include "soma/draw/chart.hpp"

#include <algorithm>
#include <cmath>

namespace soma::draw {

namespace {

constexpr double tick_size = 11, label_size = 12.5;
constexpr double tick_gap = 8;   // between a y tick label and the area
constexpr double label_gap = 12; // between the widest y tick label and the axis label
constexpr double edge = 4;       // the least room between a label and the figure's edge

} // namespace

time_unit unit_for(double max_us) {
  if (max_us < 1'000)
    return {"µs", 1};
  if (max_us < 1'000'000)
    return {"ms", 1'000};
  return {"s", 1'000'000};
}

void title_block(figure& f, std::string_view title, std::string_view subtitle) {
  f.add(text{{24, 30}, std::string{title}, 17, align::start, palette::ink, true});
  if (!subtitle.empty())
    f.add(text{{24, 50}, std::string{subtitle}, 11.5, align::start, palette::faint});
}

std::vector<double> ticks(double lo, double hi, int target, double least_step) {
  std::vector<double> out;
  if (!(hi > lo) || target < 1)
    return {lo};
  double raw = std::max((hi - lo) / target, least_step);
  double mag = std::pow(10, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0})
    if (m * mag >= raw - raw * 1e-12 && (least_step < 1 || std::fmod(m * mag, 1.0) == 0)) {
      step = m * mag;
      break;
    }
  for (double v = std::ceil(lo / step - 1e-9) * step; v <= hi + step * 1e-9; v += step)
    out.push_back(std::fabs(v) < step * 1e-9 ? 0 : v);
  return out;
}

std::vector<double> log_ticks(double lo, double hi, int target) {
  auto first = static_cast<int>(std::ceil(std::log10(lo) - 1e-9));
  auto last = static_cast<int>(std::floor(std::log10(hi) + 1e-9));
  int every = 1;
  for (int m : {1, 2, 5, 10, 20, 50, 100})
    if ((last - first) / m + 1 <= std::max(target, 2)) {
      every = m;
      break;
    }
  std::vector<double> out;
  for (int e = first; e <= last; ++e)
    if (e % every == 0)
      out.push_back(std::pow(10, e));
  return out;
}

chart::chart(figure& f, double left, double top, double right, double bottom, double x_lo,
             double x_hi, double y_lo, double y_hi, axes how)
  : f_(f), left_(left), top_(top), right_(right), bottom_(bottom), x_lo_(x_lo), x_hi_(x_hi),
    y_lo_(y_lo), y_hi_(y_hi), how_(how) {
  auto widen = [](double& lo, double& hi) {
    if (hi > lo)
      return;
    double pad = lo == 0 ? 1 : std::fabs(lo) * 0.1;
    lo -= pad;
    hi += pad;
  };
  if (how.whole_x && !(x_hi_ > x_lo_)) {
    // One forward: half a step either side, so its one tick sits under it.
    x_lo_ -= 0.5;
    x_hi_ += 0.5;
  }
  // Whole decades, so a log axis has at least two powers of ten to label.
  auto decades = [](double& lo, double& hi) {
    auto lo_e = std::floor(std::log10(lo) + 1e-9), hi_e = std::ceil(std::log10(hi) - 1e-9);
    if (hi_e <= lo_e) {
      lo_e -= 1;
      hi_e += 1;
    }
    lo = std::pow(10, lo_e);
    hi = std::pow(10, hi_e);
  };
  if (how.log_x)
    decades(x_lo_, x_hi_);
  else
    widen(x_lo_, x_hi_);
  if (how.log_y) {
    decades(y_lo_, y_hi_);
    y_ticks_ = log_ticks(y_lo_, y_hi_, std::max(2, static_cast<int>((bottom_ - top_) / 30)));
    for (double v : y_ticks_)
      y_labels_.push_back(short_number(v));
  } else {
    widen(y_lo_, y_hi_);
    y_ticks_ = ticks(y_lo_, y_hi_, std::max(2, static_cast<int>((bottom_ - top_) / 60)));
    y_labels_ = tick_labels(y_ticks_);
  }
  for (auto& l : y_labels_)
    widest_y_label_ = std::max(widest_y_label_, text_width(l, tick_size));
  // Room left of the area for the widest tick label and the upright axis
  // label (its glyphs reach about a size above its baseline): the area
  // moves right rather than a label being cut off at the figure's edge.
  left_ = std::max(left_, edge + label_size + label_gap + widest_y_label_ + tick_gap);
  f.set_area({left_, top_, right_, bottom_, x_lo_, x_hi_, y_lo_, y_hi_});
}

double chart::y_of(double v) const noexcept {
  if (how_.log_y)
    return (std::log10(v) - std::log10(y_lo_)) / (std::log10(y_hi_) - std::log10(y_lo_));
  return (v - y_lo_) / (y_hi_ - y_lo_);
}

double chart::x_of(double v) const noexcept {
  if (how_.log_x)
    return (std::log10(v) - std::log10(x_lo_)) / (std::log10(x_hi_) - std::log10(x_lo_));
  return (v - x_lo_) / (x_hi_ - x_lo_);
}

point chart::at(double x, double y) const noexcept {
  return {left_ + x_of(x) * (right_ - left_), bottom_ - y_of(y) * (bottom_ - top_)};
}

void chart::x_axis(std::string_view label) {
  auto across = std::max(2, static_cast<int>((right_ - left_) / 110));
  auto xs = how_.log_x ? log_ticks(x_lo_, x_hi_, across)
                       : ticks(x_lo_, x_hi_, across, how_.whole_x ? 1 : 0);
  std::vector<std::string> labels;
  if (how_.log_x)
    for (double v : xs)
      labels.push_back(short_number(v));
  else
    labels = tick_labels(xs);
  for (std::size_t i = 0; i < xs.size(); ++i) {
    double x = at(xs[i], y_lo_).x;
    f_.add(line{{{x, top_}, {x, bottom_}}, palette::grid, 1});
    f_.add(text{{x, bottom_ + 16}, labels[i], tick_size, align::middle, palette::faint});
  }
  f_.add(text{{(left_ + right_) / 2, bottom_ + 36}, std::string{label}, label_size, align::middle,
               palette::ink});
}

void chart::y_axis(std::string_view label) {
  for (std::size_t i = 0; i < y_ticks_.size(); ++i) {
    double y = at(x_lo_, y_ticks_[i]).y;
    f_.add(line{{{left_, y}, {right_, y}}, palette::grid, 1});
    f_.add(text{{left_ - tick_gap, y + 4}, y_labels_[i], tick_size, align::end, palette::faint});
  }
  // Upright (rotated -90), so its baseline's x is its glyphs' right edge.
  f_.add(text{{left_ - tick_gap - widest_y_label_ - label_gap + 2, (top_ + bottom_) / 2},
              std::string{label}, label_size, align::middle, palette::ink, false, -90});
}

void chart::frame() {
  f_.add(line{{{left_, top_}, {left_, bottom_}, {right_, bottom_}}, palette::ink, 1});
}

} // namespace soma::draw
