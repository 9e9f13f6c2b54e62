#include "output.hpp"

#include <ostream>
#include <string>
#include <utility>

namespace soma::cli {

namespace {

using web::json;

// `x` as one CSV cell's text, before quoting.
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

void put_cell(std::ostream& out, const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) {
    out << text;
    return;
  }
  out << '"';
  for (char c : text)
    out << (c == '"' ? "\"\"" : std::string(1, c));
  out << '"';
}

} // namespace

void print_csv(std::ostream& out, const json& array) {
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
  for (std::size_t i = 0; i < header.size(); ++i) {
    if (i > 0)
      out << ',';
    put_cell(out, header[i]);
  }
  if (!header.empty())
    out << '\n';
  for (auto& fields : rows) {
    for (std::size_t i = 0; i < header.size(); ++i) {
      if (i > 0)
        out << ',';
      for (auto& [name, value] : fields)
        if (name == header[i]) {
          put_cell(out, cell_of(*value));
          break;
        }
    }
    out << '\n';
  }
}

void print_rows(std::ostream& out, const invocation& inv, const json& array) {
  if (inv.csv)
    print_csv(out, array);
  else
    web::print_json_array(out, array);
}

} // namespace soma::cli
