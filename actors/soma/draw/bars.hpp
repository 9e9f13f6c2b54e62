#pragma once

/// @file
/// Horizontal bars of time, one row per thing, each bar made of stacked
/// parts: what spent (one part per node) and machines (working, waiting per
/// host) are drawn with.

#include <string>
#include <string_view>
#include <vector>

#include "soma/draw/figure.hpp"

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

/// A figure of horizontal stacked bars in a unit fit for the longest
/// (µs, ms or s, stated on the x axis), with a legend when there are several
/// parts. Throws std::invalid_argument when there is no row.
[[nodiscard]] figure time_bars(std::string_view title, std::string_view subtitle,
                               const std::vector<bar_part>& parts,
                               const std::vector<bar_row>& rows, std::string_view x_label);

/// A duration as text in the unit fit for it ("850 µs", "1.27 s").
[[nodiscard]] std::string duration(double us);

} // namespace soma::draw
