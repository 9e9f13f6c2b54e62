#pragma once

// What a figure draws, read back from its marks: the texts, a series' line,
// the tick labels under and beside a chart, and where a text's glyphs begin
// (soma::draw::text_width's estimate), for the figure tests.

#include <stdexcept>
#include <string>
#include <vector>

#include "soma/draw/figure.hpp"
#include "soma/draw/number.hpp"

namespace soma_test {

/// Every text mark of `f`, in order.
inline std::vector<soma::draw::text> texts(const soma::draw::figure& f) {
  std::vector<soma::draw::text> out;
  for (auto& m : f.marks())
    if (auto* t = std::get_if<soma::draw::text>(&m))
      out.push_back(*t);
  return out;
}

/// The line of `f` drawn for `series` ("raw", "mean"); throws when none is.
inline const soma::draw::line& series_line(const soma::draw::figure& f, const std::string& series) {
  for (auto& m : f.marks())
    if (auto* l = std::get_if<soma::draw::line>(&m); l && l->series == series)
      return *l;
  throw std::runtime_error("no line of series " + series);
}

/// The boxes of `f` drawn for `series`.
inline std::vector<soma::draw::box> series_boxes(const soma::draw::figure& f,
                                                 const std::string& series) {
  std::vector<soma::draw::box> out;
  for (auto& m : f.marks())
    if (auto* b = std::get_if<soma::draw::box>(&m); b && b->series == series)
      out.push_back(*b);
  return out;
}

/// The x tick labels of `f`'s chart: the texts just under its area.
inline std::vector<std::string> x_ticks(const soma::draw::figure& f) {
  std::vector<std::string> out;
  for (auto& t : texts(f))
    if (f.area() && t.anchor == soma::draw::align::middle && t.at.y == f.area()->bottom + 16)
      out.push_back(t.content);
  return out;
}

/// The y tick labels of `f`'s chart: the texts ending just left of its area.
inline std::vector<std::string> y_ticks(const soma::draw::figure& f) {
  std::vector<std::string> out;
  for (auto& t : texts(f))
    if (f.area() && t.anchor == soma::draw::align::end && t.at.x == f.area()->left - 8)
      out.push_back(t.content);
  return out;
}

/// Where `t`'s glyphs begin on the x axis (an upright text's reach a size
/// left of its baseline).
inline double left_edge(const soma::draw::text& t) {
  if (t.rotate != 0)
    return t.at.x - t.size;
  auto w = soma::draw::text_width(t.content, t.size);
  return t.anchor == soma::draw::align::start ? t.at.x
         : t.anchor == soma::draw::align::middle ? t.at.x - w / 2
                                                 : t.at.x - w;
}

} // namespace soma_test
