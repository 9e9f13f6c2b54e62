#include "soma/draw/rolling.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace soma::draw {

std::size_t default_window(std::size_t n) noexcept {
  std::size_t w = n / 20;
  if (w % 2 == 0)
    w += 1;
  return std::clamp<std::size_t>(w, 1, 1001);
}

std::size_t fitting_window(std::size_t window, std::size_t n) noexcept {
  if (window <= n)
    return window;
  return n == 0 ? 1 : n % 2 ? n : n - 1;
}

void check_window(std::size_t window) {
  if (window == 0 || window % 2 == 0)
    throw std::invalid_argument("the rolling mean's window must be odd, so that each mean is "
                                "centred on a value; " + std::to_string(window) + " is not");
}

std::vector<double> rolling_mean(std::span<const double> ys, std::size_t window) {
  check_window(window);
  auto n = ys.size();
  if (window > n)
    return {};
  // A running sum in long double: a run of a million values loses nothing a
  // figure could show.
  long double sum = 0;
  for (std::size_t i = 0; i < window; ++i)
    sum += ys[i];
  // Rounding in the sums must not carry a mean past the series' range.
  auto [lo, hi] = std::minmax_element(ys.begin(), ys.end());
  std::vector<double> out;
  out.reserve(n - window + 1);
  for (std::size_t j = 0;; ++j) {
    out.push_back(window == 1 ? ys[j]
                              : std::clamp(static_cast<double>(sum / static_cast<long double>(window)),
                                           *lo, *hi));
    if (j + window == n)
      break;
    sum += static_cast<long double>(ys[j + window]) - static_cast<long double>(ys[j]);
  }
  return out;
}

} // namespace soma::draw
