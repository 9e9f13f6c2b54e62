#include "soma/fact.hpp"

#include <ostream>

#include "soma/detail/utf8.hpp"

namespace soma {

namespace {

using detail::utf8_length;

// A JSON string of `s`. Bytes that are not UTF-8 become U+FFFD, one for
// each, so that what is written is always valid JSON.
void append_escaped(std::string& out, std::string_view s) {
  static constexpr char hex[] = "0123456789abcdef";
  out.push_back('"');
  for (std::size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
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
        } else if (static_cast<unsigned char>(c) < 0x80) {
          out.push_back(c);
        } else if (auto n = utf8_length(s.substr(i)); n > 0) {
          out.append(s.substr(i, n));
          i += n - 1;
        } else {
          out += "\\ufffd";
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
    if (f.value.is_text()) {
      append_escaped(out, f.value.text());
    } else {
      out.push_back('"');
      f.value.append_to(out);
      out.push_back('"');
    }
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
