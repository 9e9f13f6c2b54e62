#include "soma/fact.hpp"

#include <ostream>

namespace soma {

namespace {

// The length of the well-formed UTF-8 sequence at the start of `s` (RFC 3629:
// no overlong forms, no surrogates, nothing past U+10FFFF), or 0.
std::size_t utf8_length(std::string_view s) {
  auto b = [&](std::size_t i) { return static_cast<unsigned char>(s[i]); };
  auto lead = b(0);
  std::size_t n = lead >= 0xC2 && lead <= 0xDF ? 2 : lead >= 0xE0 && lead <= 0xEF ? 3
                : lead >= 0xF0 && lead <= 0xF4 ? 4 : 0;
  if (n == 0 || s.size() < n)
    return 0;
  for (std::size_t i = 1; i < n; ++i)
    if ((b(i) & 0xC0) != 0x80)
      return 0;
  auto second = b(1);
  if ((lead == 0xE0 && second < 0xA0) || (lead == 0xED && second > 0x9F)
      || (lead == 0xF0 && second < 0x90) || (lead == 0xF4 && second > 0x8F))
    return 0;
  return n;
}

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
