#include "soma/draw/bars.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include "soma/draw/chart.hpp"

namespace soma::draw {

std::string duration(double us) {
  auto unit = unit_for(us);
  return short_number(us / unit.per_us >= 100 ? std::round(us / unit.per_us)
                                              : std::round(us / unit.per_us * 100) / 100)
         + " " + unit.name;
}

figure time_bars(std::string_view title, std::string_view subtitle,
                 const std::vector<bar_part>& parts, const std::vector<bar_row>& rows,
                 std::string_view x_label) {
  if (rows.empty())
    throw std::invalid_argument("nothing to draw for '" + std::string{title}
                                + "': no row has any time");
  double longest = 0;
  std::size_t widest = 0;
  for (auto& r : rows) {
    longest = std::max(longest, std::accumulate(r.us.begin(), r.us.end(), 0.0));
    widest = std::max(widest, r.label.size());
  }
  auto unit = unit_for(longest);
  constexpr double row_height = 44, bar_height = 26;
  double left = std::clamp(24.0 + 7.5 * static_cast<double>(widest), 90.0, 280.0);
  double top = parts.size() > 1 ? 96 : 74;
  double bottom = top + row_height * static_cast<double>(rows.size());
  int height = static_cast<int>(bottom) + 60;
  constexpr int width = 960;
  double right = width - 250; // room for the notes after the bars

  figure f{width, height, std::string{title}};
  title_block(f, title, subtitle);
  chart c{f, left, top, right, bottom, 0, std::max(longest, 1.0) / unit.per_us * 1.02, 0, 1};
  c.x_axis(std::string{x_label} + " (" + unit.name + ")");
  for (std::size_t i = 0; i < parts.size() && parts.size() > 1; ++i) {
    double x = 24 + 180 * static_cast<double>(i);
    f.add(box{x, 62, 14, 14, parts[i].fill});
    f.add(text{{x + 20, 74}, parts[i].name, 12, align::start, palette::ink});
  }
  for (std::size_t i = 0; i < rows.size(); ++i) {
    auto& r = rows[i];
    double y = top + row_height * static_cast<double>(i) + (row_height - bar_height) / 2;
    f.add(text{{left - 10, y + bar_height / 2 + 4.5}, r.label, 13, align::end, palette::ink, true});
    double at = 0;
    for (std::size_t p = 0; p < parts.size() && p < r.us.size(); ++p) {
      double x0 = c.at(at / unit.per_us, 0).x;
      at += std::max(0.0, r.us[p]);
      double x1 = c.at(at / unit.per_us, 0).x;
      f.add(box{x0, y, x1 - x0, bar_height, parts[p].fill, std::nullopt, 0, parts[p].name});
    }
    f.add(text{{c.at(at / unit.per_us, 0).x + 8, y + bar_height / 2 + 4.5}, r.note, 11.5,
               align::start, palette::faint});
  }
  c.frame();
  return f;
}

} // namespace soma::draw
