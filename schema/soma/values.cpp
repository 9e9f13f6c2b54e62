#include "soma/values.hpp"

#include "soma/fact.hpp"

namespace soma {

std::string text(const value& v) {
  struct {
    std::string operator()(std::int64_t x) const { return soma::text(x); }
    std::string operator()(double x) const { return soma::text(x); } // shortest that reads back
    std::string operator()(const std::string& x) const { return x; }
    std::string operator()(bool x) const { return x ? "true" : "false"; }
  } show;
  return std::visit(show, v);
}

const char* type_word(const value& v) noexcept {
  switch (v.index()) {
    case 0: return "a whole number";
    case 1: return "a real";
    case 2: return "a text";
    default: return "a flag";
  }
}

values::values(std::initializer_list<std::pair<std::string, value>> xs) {
  for (auto& [name, v] : xs)
    set(name, v);
}

values& values::set(std::string name, value v) {
  for (auto& [n, had] : items_)
    if (n == name) {
      had = std::move(v);
      return *this;
    }
  items_.emplace_back(std::move(name), std::move(v));
  return *this;
}

const value* values::find(std::string_view name) const noexcept {
  for (auto& [n, v] : items_)
    if (n == name)
      return &v;
  return nullptr;
}

std::string values::text() const {
  std::string out;
  for (auto& [n, v] : items_)
    out += (out.empty() ? "" : ",") + n + "=" + soma::text(v);
  return out;
}

void values::missing(std::string_view name, const char* wanted) const {
  const value* v = find(name);
  std::string names;
  for (auto& [n, x] : items_)
    names += (names.empty() ? "" : ", ") + n;
  if (!v)
    throw value_missing("there is no value named '" + std::string{name} + "'; there "
                        + (items_.empty() ? std::string{"are none"} : "are: " + names));
  throw value_missing("the value '" + std::string{name} + "' is " + type_word(*v) + " ("
                      + soma::text(*v) + "), not " + wanted);
}

} // namespace soma
