#pragma once

/// @file
/// What soma's figures share: a palette, a title block, a plot area that
/// maps data to pixels with labelled axes, and time units.

#include <string>
#include <string_view>
#include <vector>

#include "soma/draw/figure.hpp"
#include "soma/draw/number.hpp"
#include "soma/export.hpp"

SOMA_API_BEGIN

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

/// A time unit fit for values up to `max_us` microseconds: µs below 1 ms,
/// ms below 1 s, else s, so a value in it reads under a thousand (never
/// "2289 µs"). `per_us` divides microseconds into the unit.
struct time_unit {
  std::string name;
  double per_us = 1;
};

/// The unit to show values up to `max_us` in.
[[nodiscard]] time_unit unit_for(double max_us);

/// Draws the title (bold) and a one-line subtitle at the top of `f`.
void title_block(figure& f, std::string_view title, std::string_view subtitle);

/// How a chart's axes count.
struct axes {
  /// x counts whole things (forwards, trials): ticks only on whole numbers,
  /// and a single x is shown half a step either side, its one tick under it.
  bool whole_x = false;
  /// A log y axis: y_lo and y_hi must be positive; ticks at powers of ten
  /// (the range is widened to whole decades).
  bool log_y = false;
  /// A log x axis, as log_y: x_lo and x_hi must be positive.
  bool log_x = false;
};

/// A plot area of a figure: maps data (x to the right, y upwards) to pixels
/// and draws labelled axes with round ticks.
class chart {
public:
  /// The area inside `f` from (left, top) to (right, bottom) pixels, showing
  /// x in [x_lo, x_hi] and y in [y_lo, y_hi]; an empty range is widened so
  /// a single value still has a place. `left` grows when the widest y tick
  /// label and the y axis' label would not fit between it and the figure's
  /// edge (left() says where the area begins).
  chart(figure& f, double left, double top, double right, double bottom, double x_lo,
        double x_hi, double y_lo, double y_hi, axes how = {});

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
  [[nodiscard]] double y_of(double v) const noexcept;
  [[nodiscard]] double x_of(double v) const noexcept;

  figure& f_;
  double left_, top_, right_, bottom_;
  double x_lo_, x_hi_, y_lo_, y_hi_;
  axes how_;
  std::vector<double> y_ticks_;
  std::vector<std::string> y_labels_;
  double widest_y_label_ = 0;
};

/// Round tick values covering [lo, hi], about `target` of them, at least
/// `least_step` apart (1 for whole numbers; 0: any step).
[[nodiscard]] std::vector<double> ticks(double lo, double hi, int target = 6,
                                        double least_step = 0);

/// Powers of ten covering [lo, hi] (both positive), about `target` of them
/// (every second or fifth decade when there are many).
[[nodiscard]] std::vector<double> log_ticks(double lo, double hi, int target = 6);

} // namespace soma::draw

SOMA_API_END
