#pragma once

/// @file
/// soma::draw::framing: the size and title a caller asks of a figure
/// (`soma plot ... --size WxH --title TEXT`), and the sizes allowed.

#include <string>

#include "soma/export.hpp"

SOMA_API_BEGIN

namespace soma::draw {

/// The smallest figure: below it the title block, the axes and their labels
/// leave no room to plot.
inline constexpr int least_width = 320, least_height = 240;
/// The largest figure: 4000 x 3000 pixels is 48 MB of PNG surface, and no
/// screen or page shows more.
inline constexpr int most_width = 4000, most_height = 3000;

/// The size and title a caller asks of a figure; zero or empty keeps the
/// figure's own.
struct framing {
  int width = 0;     ///< pixels across; 0: the figure's default
  int height = 0;    ///< pixels down; 0: the figure's default (for bars: its rows')
  std::string title; ///< the figure's title; empty: the one it makes
};

/// Throws std::invalid_argument naming the bound when `frame` asks for a
/// size outside [least_width, most_width] x [least_height, most_height].
void check_size(const framing& frame);

/// `frame`'s width, or `otherwise` when it asks for none.
[[nodiscard]] inline int width_of(const framing& frame, int otherwise) noexcept {
  return frame.width > 0 ? frame.width : otherwise;
}

/// `frame`'s height, or `otherwise` when it asks for none.
[[nodiscard]] inline int height_of(const framing& frame, int otherwise) noexcept {
  return frame.height > 0 ? frame.height : otherwise;
}

/// `frame`'s title, or `otherwise` when it asks for none.
[[nodiscard]] inline std::string title_of(const framing& frame, std::string otherwise) {
  return frame.title.empty() ? otherwise : frame.title;
}

} // namespace soma::draw

SOMA_API_END
