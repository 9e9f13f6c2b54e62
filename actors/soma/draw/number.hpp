#pragma once

/// @file
/// Numbers as a person reads them on a figure: 3e12, 1.5k, 0.001, 2.5e-05,
/// -40, never 3000000000000; and how wide a text is drawn, so a chart makes
/// room for its labels.

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "soma/export.hpp"

SOMA_API_BEGIN

namespace soma::draw {

/// `v` as a short text: below a thousand as a plain number ("-40", "0.25",
/// "0.001"), thousands with a k ("1.5k", "250k"), a million and more, and
/// less than 0.001, in scientific notation ("3e12", "1.5e6", "2.5e-05").
/// `resolution` is the smallest difference the text must still show (a
/// tick's step); 0 keeps three significant digits.
[[nodiscard]] std::string short_number(double v, double resolution = 0);

/// `x` with at most `decimals` decimals (0 to 17), trailing zeros and a bare
/// point dropped: fixed_number(2.50, 2) is "2.5", fixed_number(-0.001, 1) "0".
[[nodiscard]] std::string fixed_number(double x, int decimals);

/// The labels of `ticks`, an axis's evenly spaced values: each as
/// short_number with the step as its resolution, all of one form (plain, k
/// or scientific, by the largest), so that two ticks never read the same.
[[nodiscard]] std::vector<std::string> tick_labels(std::span<const double> ticks);

/// About how wide `content` is, in pixels, drawn at `size` pixels in the
/// figures' font (DejaVu Sans: digits are 0.64 em; the estimate errs wide).
[[nodiscard]] double text_width(std::string_view content, double size);

} // namespace soma::draw

SOMA_API_END
