#pragma once

/// @file
/// soma::draw::figure: a picture as a list of marks (lines, boxes, text),
/// written as a self-contained SVG by hand or rasterised to PNG by cairo.
///
/// Every figure soma draws (progress, spent, machines, a graph's
/// declaration) is one of these, so both formats show the same marks. No CAF
/// here: drawing is plain C++.

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "soma/export.hpp"

SOMA_API_BEGIN

namespace soma::draw {

/// A colour, each channel 0 to 1.
struct colour {
  double r = 0, g = 0, b = 0;
  friend bool operator==(const colour&, const colour&) = default;
};

/// A point in pixels, y growing downwards.
struct point {
  double x = 0, y = 0;
  friend bool operator==(const point&, const point&) = default;
};

/// Straight segments through `points`, in order: nothing between them is
/// invented. `series` names it in the SVG (`class="series-<series>"`).
struct line {
  std::vector<point> points;
  colour stroke;
  double width = 1;
  double opacity = 1;
  std::string series;
  friend bool operator==(const line&, const line&) = default;
};

/// A filled polygon (an arrow head, a legend swatch).
struct polygon {
  std::vector<point> points;
  colour fill;
  friend bool operator==(const polygon&, const polygon&) = default;
};

/// A rectangle, optionally outlined; `series` names it in the SVG.
struct box {
  double x = 0, y = 0, width = 0, height = 0;
  colour fill;
  std::optional<colour> outline;
  double radius = 0;
  std::string series;
  friend bool operator==(const box&, const box&) = default;
};

/// Where a text's anchor point is: at its start, middle or end.
enum class align { start, middle, end };

/// One line of text, its baseline at `at`; `rotate` is -90 for a y axis label.
/// `series` names it in the SVG (`class="series-<series>"`), as a line's.
struct text {
  point at;
  std::string content;
  double size = 12;
  align anchor = align::start;
  colour fill;
  bool bold = false;
  double rotate = 0;
  std::string series;
  friend bool operator==(const text&, const text&) = default;
};

/// Anything a figure is made of.
using mark = std::variant<line, polygon, box, text>;

/// Where a figure's chart maps data to pixels: its area in pixels and the
/// data ranges at its edges. The SVG carries it (data-area, data-x, data-y on
/// the root), so a page can say which forward and value are under a pointer.
struct plot_area {
  double left = 0, top = 0, right = 0, bottom = 0;
  double x_lo = 0, x_hi = 0, y_lo = 0, y_hi = 0;
  friend bool operator==(const plot_area&, const plot_area&) = default;
};

/// A picture: a size in pixels, a title, and marks drawn in order.
///
/// A value type: copy it, compare it (two figures of the same data are
/// equal), save it as often as you like.
class figure {
public:
  /// An empty figure `width` by `height` pixels titled `title` (the title is
  /// the SVG's title element; draw it with a text mark to show it).
  figure(int width, int height, std::string title);

  /// Adds a mark on top of those already there. (Out of line: GCC 12 inlines
  /// the variant's move into each caller and warns -Wmaybe-uninitialized
  /// about alternatives it cannot see are not there.)
  void add(mark m);

  /// Records where its chart maps data (soma::draw::chart does, for the
  /// first chart of a figure).
  void set_area(const plot_area& a) {
    if (!has_area_)
      area_ = a;
    has_area_ = true;
  }

  /// Adds `data-<name>="<value>"` to the SVG's root, for a page's script
  /// (the points a pointer hovers over, say); the value is escaped.
  void set_data(std::string name, std::string value) {
    data_.emplace_back(std::move(name), std::move(value));
  }

  /// The chart's area, when it has one.
  [[nodiscard]] const plot_area* area() const noexcept { return has_area_ ? &area_ : nullptr; }

  [[nodiscard]] int width() const noexcept { return width_; }
  [[nodiscard]] int height() const noexcept { return height_; }
  [[nodiscard]] const std::string& title() const noexcept { return title_; }
  [[nodiscard]] const std::vector<mark>& marks() const noexcept { return marks_; }

  /// The figure as a self-contained SVG document (no external fonts, images
  /// or scripts). Series are groups with `class="series-<name>"`.
  [[nodiscard]] std::string svg() const;

  /// The figure as PNG bytes, `width` by `height` pixels, drawn by cairo.
  /// Throws std::runtime_error when cairo fails (out of memory).
  [[nodiscard]] std::string png() const;

  /// Writes the figure to `path`, as SVG or PNG by its extension (`.svg`,
  /// `.png`, any case). Throws std::invalid_argument for another extension
  /// and std::runtime_error naming the path when it cannot be written.
  void save(const std::string& path) const;

  friend bool operator==(const figure&, const figure&) = default;

private:
  int width_;
  int height_;
  std::string title_;
  std::vector<mark> marks_;
  bool has_area_ = false;
  plot_area area_;
  std::vector<std::pair<std::string, std::string>> data_;
};

} // namespace soma::draw

SOMA_API_END
