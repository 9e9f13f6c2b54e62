// figure::png: the same marks rasterised by cairo, so a PNG shows exactly
// what the SVG does.

#include <algorithm>
#include <cmath>
#include <memory>
#include <stdexcept>

#include <cairo.h>

#include "soma/draw/figure.hpp"

namespace soma::draw {

namespace {

using surface_ptr = std::unique_ptr<cairo_surface_t, decltype(&cairo_surface_destroy)>;
using context_ptr = std::unique_ptr<cairo_t, decltype(&cairo_destroy)>;

void set(cairo_t* cr, const colour& c, double alpha = 1) {
  cairo_set_source_rgba(cr, c.r, c.g, c.b, alpha);
}

void path(cairo_t* cr, const std::vector<point>& ps) {
  for (std::size_t i = 0; i < ps.size(); ++i)
    (i == 0 ? cairo_move_to : cairo_line_to)(cr, ps[i].x, ps[i].y);
}

struct painter {
  cairo_t* cr;

  void operator()(const line& l) {
    if (l.points.empty())
      return;
    cairo_set_line_width(cr, l.width);
    cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
    cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND);
    set(cr, l.stroke, l.opacity);
    path(cr, l.points);
    cairo_stroke(cr);
  }

  void operator()(const polygon& p) {
    if (p.points.empty())
      return;
    set(cr, p.fill);
    path(cr, p.points);
    cairo_close_path(cr);
    cairo_fill(cr);
  }

  void operator()(const box& b) {
    double r = std::min({b.radius, b.width / 2, b.height / 2});
    cairo_new_sub_path(cr);
    if (r > 0) {
      cairo_arc(cr, b.x + b.width - r, b.y + r, r, -M_PI / 2, 0);
      cairo_arc(cr, b.x + b.width - r, b.y + b.height - r, r, 0, M_PI / 2);
      cairo_arc(cr, b.x + r, b.y + b.height - r, r, M_PI / 2, M_PI);
      cairo_arc(cr, b.x + r, b.y + r, r, M_PI, 3 * M_PI / 2);
      cairo_close_path(cr);
    } else {
      cairo_rectangle(cr, b.x, b.y, b.width, b.height);
    }
    set(cr, b.fill);
    if (b.outline) {
      cairo_fill_preserve(cr);
      cairo_set_line_width(cr, 1);
      set(cr, *b.outline);
      cairo_stroke(cr);
    } else {
      cairo_fill(cr);
    }
  }

  void operator()(const text& t) {
    cairo_select_font_face(cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL,
                           t.bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr, t.size);
    cairo_text_extents_t ext;
    cairo_text_extents(cr, t.content.c_str(), &ext);
    double shift = t.anchor == align::start ? 0 : t.anchor == align::middle ? ext.x_advance / 2
                                                                           : ext.x_advance;
    cairo_save(cr);
    cairo_translate(cr, t.at.x, t.at.y);
    cairo_rotate(cr, t.rotate * M_PI / 180);
    cairo_move_to(cr, -shift, 0);
    set(cr, t.fill);
    cairo_show_text(cr, t.content.c_str());
    cairo_restore(cr);
  }
};

cairo_status_t append(void* closure, const unsigned char* data, unsigned int length) {
  static_cast<std::string*>(closure)->append(reinterpret_cast<const char*>(data), length);
  return CAIRO_STATUS_SUCCESS;
}

} // namespace

std::string figure::png() const {
  surface_ptr surface{cairo_image_surface_create(CAIRO_FORMAT_ARGB32, width_, height_),
                      cairo_surface_destroy};
  context_ptr cr{cairo_create(surface.get()), cairo_destroy};
  if (cairo_status(cr.get()) != CAIRO_STATUS_SUCCESS)
    throw std::runtime_error(std::string{"cairo cannot draw a "} + std::to_string(width_) + "x"
                             + std::to_string(height_) + " figure: "
                             + cairo_status_to_string(cairo_status(cr.get())));
  cairo_set_source_rgb(cr.get(), 1, 1, 1);
  cairo_paint(cr.get());
  painter p{cr.get()};
  for (auto& m : marks_)
    std::visit(p, m);
  cairo_surface_flush(surface.get());
  std::string bytes;
  if (auto st = cairo_surface_write_to_png_stream(surface.get(), append, &bytes);
      st != CAIRO_STATUS_SUCCESS)
    throw std::runtime_error(std::string{"cairo cannot encode the figure as PNG: "}
                             + cairo_status_to_string(st));
  return bytes;
}

} // namespace soma::draw
