#include "soma/health/opinion.hpp"

#include <cmath>
#include <cstdio>
#include <ostream>

namespace soma::health {

std::string_view to_string(status x) noexcept {
  return x == status::firing ? "firing" : "pending";
}

std::ostream& operator<<(std::ostream& out, status x) { return out << to_string(x); }

std::string number(double x) {
  if (std::isnan(x))
    return "nan";
  if (std::isinf(x))
    return x > 0 ? "inf" : "-inf";
  char buf[64];
  if (std::fabs(x) >= 1e15) { // %.3f of a huge number is a wall of digits
    std::snprintf(buf, sizeof buf, "%.4g", x);
    return buf;
  }
  std::snprintf(buf, sizeof buf, "%.3f", x);
  std::string out = buf;
  // 2.500 -> 2.5, 3.000 -> 3
  while (out.back() == '0')
    out.pop_back();
  if (out.back() == '.')
    out.pop_back();
  return out == "-0" ? "0" : out;
}

std::string opinion::says() const {
  auto for_s = number(static_cast<double>(for_us) / 1e6);
  std::string out = "opinion (" + rule + ", " + std::string{to_string(state)} + "): " + subject
                    + ": " + measure + " " + number(value) + " is over " + number(threshold);
  if (!threshold_is.empty())
    out += " (" + threshold_is + ")";
  out += state == status::firing ? ", and has been for at least " + for_s + " s"
                                 : ", for less than the " + for_s + " s it must hold to fire";
  return out;
}

} // namespace soma::health
