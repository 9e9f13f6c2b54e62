#pragma once

/// @file
/// What soma's figures share: a palette, a title block, a plot area that
/// maps data to pixels with labelled axes, and time units.

#include <string>
#include <string_view>
#include <vector>

#include "soma/draw/figure.hpp"

namespace soma::draw {

/// soma's palette: ink for text and axes, a pale grid, and the series.
namespace palette {
inline constexpr colour ink{0.13, 0.13, 0.15};
inline constexpr colour faint{0.45, 0.45, 0.5};
inline constexpr colour grid{0.88, 0.88, 0.9};
inline constexpr colour raw{0.55, 0.65, 0.8};    ///< the thin raw series
inline constexpr colour mean{0.05, 0.25, 0.6};   ///< the bold rolling mean
inline constexpr colour work{0.1, 0.6, 0.55};    ///< teal: time working
inline constexpr colour wait{0.95, 0.55, 0.15};  ///< orange: time waiting
inline constexpr colour here{0.86, 0.91, 0.97};  ///< a node that runs here
inline constexpr colour away{0.99, 0.89, 0.76};  ///< a node sent to a worker
} // namespace palette

/// A time unit fit for values up to `max_us` microseconds: µs below 10 ms,
/// ms below 10 s, else s. `per_us` divides microseconds into the unit.
struct time_unit {
  std::string name;
  double per_us = 1;
};

/// The unit to show values up to `max_us` in.
[[nodiscard]] time_unit unit_for(double max_us);

/// `v` as a short text: whole numbers without decimals, others with at most
/// three significant decimals ("0.25", "1500", "2.5e-05" for the tiny).
[[nodiscard]] std::string short_number(double v);

/// Draws the title (bold) and a one-line subtitle at the top of `f`.
void title_block(figure& f, std::string_view title, std::string_view subtitle);

/// A plot area of a figure: maps data (x to the right, y upwards) to pixels
/// and draws labelled axes with round ticks.
class chart {
public:
  /// The area inside `f` from (left, top) to (right, bottom) pixels, showing
  /// x in [x_lo, x_hi] and y in [y_lo, y_hi]; an empty range is widened so
  /// a single value still has a place.
  chart(figure& f, double left, double top, double right, double bottom, double x_lo,
        double x_hi, double y_lo, double y_hi);

  /// The pixel where data (x, y) goes.
  [[nodiscard]] point at(double x, double y) const noexcept;

  /// Vertical grid lines at round x ticks, their values under the area, and
  /// `label` centred below them.
  void x_axis(std::string_view label);

  /// Horizontal grid lines at round y ticks, their values left of the area,
  /// and `label` turned upright beside them.
  void y_axis(std::string_view label);

  /// The area's frame (left and bottom lines); draw it after the data.
  void frame();

  [[nodiscard]] double left() const noexcept { return left_; }
  [[nodiscard]] double top() const noexcept { return top_; }
  [[nodiscard]] double right() const noexcept { return right_; }
  [[nodiscard]] double bottom() const noexcept { return bottom_; }

private:
  figure& f_;
  double left_, top_, right_, bottom_;
  double x_lo_, x_hi_, y_lo_, y_hi_;
};

/// Round tick values covering [lo, hi], about `target` of them.
[[nodiscard]] std::vector<double> ticks(double lo, double hi, int target = 6);

} // namespace soma::draw
