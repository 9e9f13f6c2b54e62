#include "soma/web/csv.hpp"

#include <algorithm>
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

namespace {

// `x` as one CSV cell's text.
std::string cell_of(const json& x) {
  if (x.is_null())
    return {};
  if (x.is_string())
    return x.get<std::string>();
  if (x.is_array()) {
    std::string out;
    for (auto& item : x)
      out += (out.empty() ? "" : ";") + cell_of(item);
    return out;
  }
  return x.dump();
}

// `object`'s fields, nested objects flattened with '.', in order.
void flatten(const json& object, const std::string& prefix,
             std::vector<std::pair<std::string, const json*>>& out) {
  for (auto& [key, value] : object.items()) {
    auto name = prefix.empty() ? key : prefix + "." + key;
    if (value.is_object())
      flatten(value, name, out);
    else
      out.emplace_back(std::move(name), &value);
  }
}

} // namespace

std::string csv_of(const json& array) {
  std::vector<std::vector<std::pair<std::string, const json*>>> rows;
  std::vector<std::string> header;
  for (auto& object : array) {
    auto& fields = rows.emplace_back();
    if (object.is_object())
      flatten(object, "", fields);
    else
      fields.emplace_back("value", &object);
    for (auto& [name, value] : fields)
      if (std::find(header.begin(), header.end(), name) == header.end())
        header.push_back(name);
  }
  if (header.empty())
    return {};
  std::string out = csv_line(header);
  for (auto& fields : rows) {
    std::vector<std::string> cells(header.size());
    for (auto& [name, value] : fields)
      cells[static_cast<std::size_t>(std::find(header.begin(), header.end(), name) - header.begin())] =
        cell_of(*value);
    out += csv_line(cells);
  }
  return out;
}

std::string curve_csv(const std::vector<std::pair<std::uint64_t, double>>& points) {
  auto array = json::array();
  for (auto& point : points)
    array.push_back(json_of(point));
  auto out = csv_of(array);
  return out.empty() ? csv_line({"forward", "value"}) : out;
}

} // namespace soma::web
