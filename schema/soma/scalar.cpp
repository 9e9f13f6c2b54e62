#include "soma/scalar.hpp"

#include <ostream>

namespace soma {

void scalar::append_to(std::string& out) const {
  if (auto* s = std::get_if<std::string>(&v_)) {
    out += *s;
    return;
  }
  char buf[32];
  auto [end, ec] = is_integer() ? std::to_chars(buf, buf + sizeof buf, std::get<std::int64_t>(v_))
                                : std::to_chars(buf, buf + sizeof buf, std::get<double>(v_));
  out.append(buf, ec == std::errc{} ? end : buf);
}

std::string scalar::str() const {
  if (auto* s = std::get_if<std::string>(&v_))
    return *s;
  std::string out;
  append_to(out);
  return out;
}

std::ostream& operator<<(std::ostream& out, const scalar& x) {
  if (x.is_text())
    return out << x.text();
  return out << x.str();
}

namespace {

// Whether `s` is an integer exactly as soma::text writes one.
bool canonical_integer(std::string_view s, std::int64_t& x) noexcept {
  if (s.empty() || s.size() > 20)
    return false;
  std::size_t i = s[0] == '-' ? 1 : 0;
  if (i == s.size() || (s[i] == '0' && (s.size() > i + 1 || i == 1)))
    return false;
  for (std::size_t j = i; j < s.size(); ++j)
    if (s[j] < '0' || s[j] > '9')
      return false;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), x);
  return ec == std::errc{} && end == s.data() + s.size();
}

// Whether `s` is a double exactly as soma::text writes one (the shortest text
// that reads back to it), with a '.' or an exponent.
bool canonical_real(std::string_view s, double& x) noexcept {
  if (s.empty() || s.size() > 32 || s.find_first_of(".e") == std::string_view::npos)
    return false;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), x);
  if (ec != std::errc{} || end != s.data() + s.size())
    return false;
  char buf[32];
  auto [back, ec2] = std::to_chars(buf, buf + sizeof buf, x);
  return ec2 == std::errc{} && std::string_view{buf, static_cast<std::size_t>(back - buf)} == s;
}

} // namespace

std::optional<double> read_number(const scalar& x) noexcept {
  if (auto n = x.number())
    return n;
  auto t = x.text();
  double d = 0;
  auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), d);
  if (t.empty() || ec != std::errc{} || end != t.data() + t.size())
    return std::nullopt;
  return d;
}

scalar scalar_of_text(std::string_view s) {
  std::int64_t i = 0;
  double d = 0;
  if (canonical_integer(s, i))
    return scalar{i};
  if (canonical_real(s, d))
    return scalar{d};
  return scalar{s};
}

} // namespace soma
