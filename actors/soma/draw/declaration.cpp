#include "soma/draw/declaration.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "soma/draw/chart.hpp"
#include "soma/node_declaration.hpp"

namespace soma::draw {

namespace {

constexpr double box_w = 184, box_h = 100, gap = 60, margin = 32, row_gap = 70, top = 84;
constexpr std::size_t per_row = 5;

std::string clipped(const std::string& s, std::size_t n) {
  return s.size() <= n ? s : s.substr(0, n - 1) + "~";
}

void arrow(figure& f, std::vector<point> path) {
  f.add(line{path, palette::ink, 1.6});
  auto tip = path.back(), from = path[path.size() - 2];
  double dx = tip.x - from.x, dy = tip.y - from.y;
  double len = std::max(1e-9, std::hypot(dx, dy));
  dx /= len;
  dy /= len;
  f.add(polygon{{tip, {tip.x - 10 * dx - 5 * dy, tip.y - 10 * dy + 5 * dx},
                 {tip.x - 10 * dx + 5 * dy, tip.y - 10 * dy - 5 * dx}},
                palette::ink});
}

} // namespace

figure graph(const std::vector<node_declaration>& nodes, std::string_view title) {
  if (nodes.empty())
    throw std::invalid_argument("nothing to draw: the declaration has no node; "
                                "pass g.declaration() of a graph soma::graph::somatize made");
  auto columns = std::min(nodes.size(), per_row);
  auto rows = (nodes.size() + per_row - 1) / per_row;
  double width = std::max(640.0, 2 * margin + columns * box_w + (columns - 1) * gap);
  double height = top + rows * box_h + (rows - 1) * row_gap + 40;
  std::size_t away = std::count_if(nodes.begin(), nodes.end(),
                                   [](const node_declaration& n) { return n.host.has_value(); });
  figure f{static_cast<int>(width), static_cast<int>(height), std::string{title}};
  title_block(f, title,
              std::to_string(nodes.size()) + (nodes.size() == 1 ? " node" : " nodes")
                + " in the order a forward visits them; " + std::to_string(away)
                + " sent to a worker (shaded orange), the rest run here");
  auto corner = [&](std::size_t i) {
    return point{margin + static_cast<double>(i % per_row) * (box_w + gap),
                 top + static_cast<double>(i / per_row) * (box_h + row_gap)};
  };
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    auto& n = nodes[i];
    auto p = corner(i);
    f.add(box{p.x, p.y, box_w, box_h, n.host ? palette::away : palette::here, palette::faint, 8,
              n.host ? "away" : "here"});
    double cx = p.x + box_w / 2;
    f.add(text{{cx, p.y + 24}, clipped(n.name, 22), 14, align::middle, palette::ink, true});
    f.add(text{{cx, p.y + 42}, clipped(n.type, 28), 10.5, align::middle, palette::faint});
    f.add(text{{cx, p.y + 64}, n.host ? "at " + clipped(*n.host, 20) : "here", 12.5,
               align::middle, palette::ink, n.host.has_value()});
    std::string marks;
    if (n.frozen)
      marks = "frozen " + clipped(*n.frozen, 14);
    if (n.cached)
      marks += marks.empty() ? "cached" : ", cached";
    if (!marks.empty())
      f.add(text{{cx, p.y + 84}, marks, 11.5, align::middle, palette::mean});
    if (i + 1 == nodes.size())
      continue;
    auto q = corner(i + 1);
    if ((i + 1) % per_row != 0) {
      arrow(f, {{p.x + box_w, p.y + box_h / 2}, {q.x - 2, q.y + box_h / 2}});
    } else { // down, back to the next row's start, and in
      double mid = p.y + box_h + row_gap / 2;
      arrow(f, {{cx, p.y + box_h}, {cx, mid}, {q.x + box_w / 2, mid}, {q.x + box_w / 2, q.y - 2}});
    }
  }
  return f;
}

bool draw_if_asked(const std::vector<node_declaration>& nodes, std::string_view title) {
  const char* path = std::getenv(draw_graph_variable);
  if (!path || !*path)
    return false;
  graph(nodes, title).save(path);
  return true;
}

} // namespace soma::draw
