#pragma once

/// @file
/// The centred rolling mean progress draws over a series: no spline, no
/// exponential average, nothing invented between points.

#include <cstddef>
#include <span>
#include <vector>

namespace soma::draw {

/// The window progress uses for `n` values when none is given: about n/20,
/// made odd so it has a centre, at least 1 and at most 1001.
[[nodiscard]] std::size_t default_window(std::size_t n) noexcept;

/// The centred rolling mean of `ys` over `window` values (odd, so each mean
/// sits on the value at its centre, neither early nor late).
///
/// At the edges the window **shrinks symmetrically**: value i averages
/// ys[i-h .. i+h] with h = min(window/2, i, n-1-i), so the first and last
/// means are the first and last values themselves and every mean is still
/// centred on its own point. (Truncating the window instead would pull the
/// ends towards the inside: a mean drawn at forward 0 made only of later
/// values.) Each mean lies between the smallest and largest of the values it
/// averages, so none lies outside the series' range (means are clamped to
/// it, so rounding cannot carry one out either).
///
/// O(n). Throws std::invalid_argument for an even or zero window.
[[nodiscard]] std::vector<double> rolling_mean(std::span<const double> ys, std::size_t window);

} // namespace soma::draw
