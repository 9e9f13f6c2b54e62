// figure::svg: the marks as SVG text, written by hand so the document is
// small, self-contained and says which series each line is.

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>

#include "soma/draw/figure.hpp"

namespace soma::draw {

namespace {

// Two decimals, trailing zeros dropped: pixels need no more.
void number(std::string& out, double x) {
  if (!std::isfinite(x))
    x = 0;
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, std::round(x * 100) / 100,
                                 std::chars_format::fixed, 2);
  auto* p = end;
  while (p > buf && p[-1] == '0')
    --p;
  if (p > buf && p[-1] == '.')
    --p;
  out.append(buf, p == buf ? end : p);
}

void paint(std::string& out, const colour& c) {
  char buf[8];
  auto byte = [](double v) { return static_cast<int>(std::lround(std::clamp(v, 0.0, 1.0) * 255)); };
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", byte(c.r), byte(c.g), byte(c.b));
  out += buf;
}

void escaped(std::string& out, std::string_view s) {
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
}

void points(std::string& out, const std::vector<point>& ps) {
  out += " points=\"";
  for (std::size_t i = 0; i < ps.size(); ++i) {
    if (i)
      out += ' ';
    number(out, ps[i].x);
    out += ',';
    number(out, ps[i].y);
  }
  out += '"';
}

void series_class(std::string& out, const std::string& series) {
  if (series.empty())
    return;
  out += " class=\"series-";
  escaped(out, series);
  out += '"';
}

// ` name="value"`, a number or a colour.
void attribute(std::string& out, std::string_view name, double v) {
  out.append(" ").append(name).append("=\"");
  number(out, v);
  out += '"';
}

void attribute(std::string& out, std::string_view name, const colour& c) {
  out.append(" ").append(name).append("=\"");
  paint(out, c);
  out += '"';
}

struct writer {
  std::string& out;

  void operator()(const line& l) {
    out += "<polyline fill=\"none\" stroke-linejoin=\"round\" stroke-linecap=\"round\"";
    series_class(out, l.series);
    attribute(out, "stroke", l.stroke);
    attribute(out, "stroke-width", l.width);
    if (l.opacity < 1)
      attribute(out, "stroke-opacity", l.opacity);
    points(out, l.points);
    out += "/>\n";
  }

  void operator()(const polygon& p) {
    out += "<polygon";
    attribute(out, "fill", p.fill);
    points(out, p.points);
    out += "/>\n";
  }

  void operator()(const box& b) {
    out += "<rect";
    series_class(out, b.series);
    attribute(out, "x", b.x);
    attribute(out, "y", b.y);
    attribute(out, "width", b.width);
    attribute(out, "height", b.height);
    attribute(out, "rx", b.radius);
    attribute(out, "fill", b.fill);
    if (b.outline) {
      attribute(out, "stroke", *b.outline);
      out += " stroke-width=\"1\"";
    }
    out += "/>\n";
  }

  void operator()(const text& t) {
    static constexpr const char* anchors[] = {"start", "middle", "end"};
    out += "<text";
    series_class(out, t.series);
    attribute(out, "x", t.at.x);
    attribute(out, "y", t.at.y);
    attribute(out, "font-size", t.size);
    out.append(" text-anchor=\"").append(anchors[static_cast<int>(t.anchor)]).append("\"");
    attribute(out, "fill", t.fill);
    if (t.bold)
      out += " font-weight=\"bold\"";
    if (t.rotate != 0) {
      out += " transform=\"rotate(";
      number(out, t.rotate);
      out += ' ';
      number(out, t.at.x);
      out += ' ';
      number(out, t.at.y);
      out += ")\"";
    }
    out += '>';
    escaped(out, t.content);
    out += "</text>\n";
  }
};

} // namespace

std::string figure::svg() const {
  std::string out;
  out.reserve(4096);
  out += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"";
  out += std::to_string(width_) + "\" height=\"" + std::to_string(height_) + "\" viewBox=\"0 0 "
         + std::to_string(width_) + ' ' + std::to_string(height_)
         + "\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\"";
  if (auto* a = area()) {
    auto n = [](double x) { // shortest text that reads back as x
      char buf[32];
      auto [end, ec] = std::to_chars(buf, buf + sizeof buf, x);
      return std::string(buf, ec == std::errc{} ? end : buf);
    };
    out += " data-area=\"" + n(a->left) + ' ' + n(a->top) + ' ' + n(a->right) + ' ' + n(a->bottom)
           + "\" data-x=\"" + n(a->x_lo) + ' ' + n(a->x_hi) + "\" data-y=\"" + n(a->y_lo) + ' '
           + n(a->y_hi) + '"';
  }
  for (auto& [name, value] : data_) {
    out += " data-" + name + "=\"";
    escaped(out, value);
    out += '"';
  }
  out += ">\n<title>";
  escaped(out, title_);
  out += "</title>\n<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n";
  writer w{out};
  for (auto& m : marks_)
    std::visit(w, m);
  out += "</svg>\n";
  return out;
}

} // namespace soma::draw
