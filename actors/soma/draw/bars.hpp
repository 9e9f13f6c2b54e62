#pragma once

/// @file
/// Horizontal bars of time, one row per thing, each bar made of stacked
/// parts: what spent (one part per node) and machines (working, waiting per
/// host) are drawn with.

#include <string>
#include <string_view>
#include <vector>

#include "soma/draw/chart.hpp"
#include "soma/draw/figure.hpp"
#include "soma/draw/framing.hpp"
#include "soma/export.hpp"

SOMA_API_BEGIN

namespace soma::draw {

/// One part of a stacked bar: its name (the legend's and the SVG class
/// `series-<name>`) and colour.
struct bar_part {
  std::string name;
  colour fill;
};

/// One row: its label on the left, its parts' microseconds (in the order of
/// the parts), and a note written after the bar.
struct bar_row {
  std::string label;
  std::vector<double> us;
  std::string note;
};

/// The narrowest a part of a bar is drawn when it is not zero, in pixels:
/// a 2 µs wait beside 800 ms of work is still seen (its note says its true
/// value).
inline constexpr double least_part_width = 3;

/// A figure of horizontal stacked bars in a unit fit for the longest
/// (µs, ms or s, stated on the x axis), with a legend when there are several
/// parts (its entries side by side). `frame` sets its size (the rows share
/// the height) and title. Throws std::invalid_argument when there is no row
/// or the size is out of bounds.
[[nodiscard]] figure time_bars(std::string_view title, std::string_view subtitle,
                               const std::vector<bar_part>& parts,
                               const std::vector<bar_row>& rows, std::string_view x_label,
                               const framing& frame = {});

/// A duration as text in the unit fit for it ("850 µs", "1.3 s").
[[nodiscard]] std::string duration(double us);

/// A duration as text in `unit`, so the durations of one label share one
/// ("working 800 ms, waiting 2.3 ms"): whole above 100, one decimal above
/// 1, two significant digits below ("0.052 ms").
[[nodiscard]] std::string duration(double us, const time_unit& unit);

} // namespace soma::draw

SOMA_API_END
