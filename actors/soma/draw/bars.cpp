#include "soma/draw/bars.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace soma::draw {

std::string duration(double us) { return duration(us, unit_for(us)); }

std::string duration(double us, const time_unit& unit) {
  double v = us / unit.per_us;
  int decimals = v >= 100 || v == 0 ? 0
                 : v >= 1           ? 1
                                    : 1 - static_cast<int>(std::floor(std::log10(std::fabs(v))));
  return fixed_number(v, decimals) + " " + unit.name;
}

figure time_bars(std::string_view title, std::string_view subtitle,
                 const std::vector<bar_part>& parts, const std::vector<bar_row>& rows,
                 std::string_view x_label, const framing& frame) {
  if (rows.empty())
    throw std::invalid_argument("nothing to draw for '" + std::string{title}
                                + "': no row has any time");
  check_size(frame);
  double longest = 0, widest = 0, widest_note = 0;
  for (auto& r : rows) {
    longest = std::max(longest, std::accumulate(r.us.begin(), r.us.end(), 0.0));
    widest = std::max(widest, text_width(r.label, 13));
    widest_note = std::max(widest_note, text_width(r.note, 11.5));
  }
  auto unit = unit_for(longest);
  double top = parts.size() > 1 ? 96 : 74;
  double row_height = 44;
  int width = width_of(frame, 960);
  int height = height_of(frame, static_cast<int>(top + row_height * static_cast<double>(rows.size())) + 60);
  row_height = (height - 60 - top) / static_cast<double>(rows.size());
  double bar_height = std::min(26.0, row_height * 0.6);
  double left = std::clamp(24.0 + widest, 90.0, width * 0.3);
  double bottom = top + row_height * static_cast<double>(rows.size());
  // Room after the bars for the notes, a third of the figure at most.
  double right = width - std::clamp(widest_note + 20, 120.0, width / 3.0);

  auto named = title_of(frame, std::string{title});
  figure f{width, height, named};
  title_block(f, named, subtitle);
  chart c{f, left, top, right, bottom, 0, std::max(longest, 1.0) / unit.per_us * 1.02, 0, 1};
  c.x_axis(std::string{x_label} + " (" + unit.name + ")");
  // The legend: its entries one after another, each as wide as its name.
  double lx = 24;
  for (std::size_t i = 0; i < parts.size() && parts.size() > 1; ++i) {
    f.add(box{lx, 62, 14, 14, parts[i].fill});
    f.add(text{{lx + 20, 74}, parts[i].name, 12, align::start, palette::ink});
    lx += 20 + text_width(parts[i].name, 12) + 18;
  }
  for (std::size_t i = 0; i < rows.size(); ++i) {
    auto& r = rows[i];
    double y = top + row_height * static_cast<double>(i) + (row_height - bar_height) / 2;
    f.add(text{{c.left() - 10, y + bar_height / 2 + 4.5}, r.label, 13, align::end, palette::ink,
               true});
    double at = 0, x0 = c.at(0, 0).x;
    for (std::size_t p = 0; p < parts.size() && p < r.us.size(); ++p) {
      at += std::max(0.0, r.us[p]);
      double x1 = c.at(at / unit.per_us, 0).x;
      if (r.us[p] > 0)
        x1 = std::max(x1, x0 + least_part_width);
      if (x1 > x0)
        f.add(box{x0, y, x1 - x0, bar_height, parts[p].fill, std::nullopt, 0, parts[p].name});
      x0 = std::max(x0, x1);
    }
    f.add(text{{x0 + 8, y + bar_height / 2 + 4.5}, r.note, 11.5, align::start, palette::faint});
  }
  c.frame();
  return f;
}

} // namespace soma::draw
