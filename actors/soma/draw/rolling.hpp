#pragma once

/// @file
/// The centred rolling mean progress draws over a series: no spline, no
/// exponential average, nothing invented between points.

#include <cstddef>
#include <span>
#include <vector>

#include "soma/export.hpp"

namespace soma::draw {

/// The window progress uses for `n` values when none is given: about n/20,
/// made odd so it has a centre, at least 1 and at most 1001.
[[nodiscard]] std::size_t default_window(std::size_t n) noexcept;

/// Throws std::invalid_argument, saying why, when `window` is even or zero:
/// a centred window needs a middle value.
SOMA_API_EXPORT void check_window(std::size_t window);

/// The window `window` is drawn with over `n` values: itself, or the widest
/// odd window there is room for when it is wider than the series (1 for an
/// empty one).
[[nodiscard]] std::size_t fitting_window(std::size_t window,
                                         std::size_t n) noexcept;

/// The centred rolling mean of `ys` over `window` values (odd, so each mean
/// sits on the value at its centre, neither early nor late), **where the
/// window is full only**: element j is the mean of ys[j .. j+window-1] and
/// belongs to ys[j + window/2]. There are n - window + 1 of them (none when
/// the window is wider than the series).
///
/// Why only full windows: a window narrowing towards the ends averages ever
/// fewer values, down to the last value alone, so a noisy series' mean leaps
/// to its last raw value in the last pixels (the artefact seen at 100,000
/// forwards). A trailing window would reach the end but lag by half a
/// window everywhere. Leaving the mean off the first and last window/2
/// values (the thin raw line still shows them) invents nothing and keeps
/// every mean centred and equally smooth.
///
/// Each mean lies between the smallest and largest of the values it
/// averages (clamped to the series' range, so rounding cannot carry one
/// out). O(n). Throws std::invalid_argument for an even or zero window.
[[nodiscard]] std::vector<double> rolling_mean(std::span<const double> ys,
                                               std::size_t window);

} // namespace soma::draw
