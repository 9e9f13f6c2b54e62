#include "soma/detail/utf8.hpp"

namespace soma::detail {

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

std::size_t first_not_utf8(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    if (static_cast<unsigned char>(s[i]) < 0x80) {
      ++i;
      continue;
    }
    auto n = utf8_length(s.substr(i));
    if (n == 0)
      return i;
    i += n;
  }
  return s.size();
}

} // namespace soma::detail
