#include "soma/draw/number.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace soma::draw {

namespace {

enum class form { plain, thousands, scientific };

form form_for(double magnitude) {
  if (magnitude >= 1e6 || (magnitude > 0 && magnitude < 1e-3))
    return form::scientific;
  return magnitude >= 1e3 ? form::thousands : form::plain;
}

// The decimal exponent of the last digit `resolution` needs: -1 for 0.5,
// -1 for 2.5 (its 5 is a tenth), 2 for 500.
int last_digit(double resolution) {
  int e = static_cast<int>(std::floor(std::log10(resolution)));
  double mantissa = resolution / std::pow(10, e);
  if (std::fabs(mantissa - std::round(mantissa)) > 1e-6)
    --e;
  return e;
}

std::string formatted(double v, double resolution, form f) {
  if (v == 0 || !std::isfinite(v))
    return v == 0 ? "0" : fmt::format("{}", v);
  // The last digit shown: from the resolution, else the third significant.
  int e = static_cast<int>(std::floor(std::log10(std::fabs(v))));
  int last = resolution > 0 ? last_digit(resolution) : e - 2;
  if (resolution > 0 && std::fabs(v) < resolution * 1e-6)
    return "0"; // a tick that is zero but for rounding
  last = std::max(last, e - 14); // no more digits than a double holds
  switch (f) {
    case form::plain: return fixed_number(v, -last);
    case form::thousands: return fixed_number(v / 1e3, 3 - last) + "k";
    case form::scientific: break;
  }
  // Rounding may carry the mantissa to 10 (9.996e5 to 1e6): take the
  // exponent of the rounded value.
  auto rounded = std::round(v / std::pow(10, last)) * std::pow(10, last);
  e = static_cast<int>(std::floor(std::log10(std::fabs(rounded))));
  auto mantissa = fixed_number(rounded / std::pow(10, e), e - last);
  // Large exponents as a person writes them (3e12); small ones as C and
  // Python print them (2.5e-05), which a reader of logs knows.
  return e >= 0 ? fmt::format("{}e{}", mantissa, e) : fmt::format("{}e-{:02d}", mantissa, -e);
}

} // namespace

std::string fixed_number(double x, int decimals) {
  auto s = fmt::format("{:.{}f}", x, std::clamp(decimals, 0, 17));
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0')
      s.pop_back();
    if (s.back() == '.')
      s.pop_back();
  }
  return s == "-0" ? "0" : s;
}

std::string short_number(double v, double resolution) {
  if (!std::isfinite(v))
    return fmt::format("{}", v);
  // The form by the value as it will read: 999.96 reads 1k, not 1000.
  double magnitude = std::fabs(v);
  if (magnitude > 0) {
    int e = static_cast<int>(std::floor(std::log10(magnitude)));
    int last = resolution > 0 ? last_digit(resolution) : e - 2;
    magnitude = std::fabs(std::round(v / std::pow(10, last)) * std::pow(10, last));
  }
  return formatted(v, resolution, form_for(magnitude));
}

std::vector<std::string> tick_labels(std::span<const double> ticks) {
  std::vector<std::string> out;
  if (ticks.empty())
    return out;
  double step = 0, largest = 0;
  for (std::size_t i = 0; i < ticks.size(); ++i) {
    largest = std::max(largest, std::fabs(ticks[i]));
    if (i > 0)
      step = step == 0 ? std::fabs(ticks[i] - ticks[i - 1])
                       : std::min(step, std::fabs(ticks[i] - ticks[i - 1]));
  }
  auto f = form_for(largest);
  for (double t : ticks)
    out.push_back(formatted(t, step, f));
  return out;
}

double text_width(std::string_view content, double size) {
  double em = 0;
  for (unsigned char c : content) {
    if ((c & 0xC0) == 0x80)
      continue; // a UTF-8 continuation byte: one character is counted once
    em += c >= 'A' && c <= 'Z' ? 0.72 : c == ' ' || c == '.' || c == ',' ? 0.34 : 0.64;
  }
  return em * size;
}

} // namespace soma::draw
