#include "soma/fact.hpp"

#include <ostream>

namespace soma {

namespace {

void append_escaped(std::string& out, std::string_view s) {
  static constexpr char hex[] = "0123456789abcdef";
  out.push_back('"');
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          out += "\\u00";
          out.push_back(hex[(c >> 4) & 0xf]);
          out.push_back(hex[c & 0xf]);
        } else {
          out.push_back(c);
        }
    }
  }
  out.push_back('"');
}

} // namespace

void append_json(std::string& out, const fact& x) {
  out += "{\"fact\":";
  append_escaped(out, x.name);
  for (auto& f : x.fields) {
    out.push_back(',');
    append_escaped(out, f.key);
    out.push_back(':');
    append_escaped(out, f.value);
  }
  out.push_back('}');
}

std::string to_json(const fact& x) {
  std::string out;
  out.reserve(32 + x.fields.size() * 24);
  append_json(out, x);
  return out;
}

std::ostream& operator<<(std::ostream& out, const fact& x) {
  return out << to_json(x);
}

} // namespace soma
