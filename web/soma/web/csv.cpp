#include "soma/web/csv.hpp"

#include <cstdio>

namespace soma::web {

std::string readable_number(double x) {
  char out[32];
  std::snprintf(out, sizeof out, "%.6g", x);
  return out;
}

std::string csv_line(const std::vector<std::string>& cells) {
  std::string out;
  for (std::size_t i = 0; i < cells.size(); ++i) {
    if (i > 0)
      out += ',';
    auto& c = cells[i];
    if (c.find_first_of(",\"\r\n") == std::string::npos) {
      out += c;
      continue;
    }
    out += '"';
    for (char ch : c)
      out.append(ch == '"' ? 2 : 1, ch);
    out += '"';
  }
  out += '\n';
  return out;
}

std::string curve_csv(const std::vector<std::pair<std::uint64_t, double>>& points) {
  std::string out = csv_line({"forward", "value"});
  for (auto& [n, v] : points)
    out += csv_line({std::to_string(n), readable_number(v)});
  return out;
}

} // namespace soma::web
