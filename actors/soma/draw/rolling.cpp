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

std::vector<double> rolling_mean(std::span<const double> ys, std::size_t window) {
  if (window == 0 || window % 2 == 0)
    throw std::invalid_argument("the rolling mean's window must be odd, so that each mean is "
                                "centred on a value; " + std::to_string(window) + " is not");
  auto n = ys.size();
  // Prefix sums in long double: a run of a million values loses nothing a
  // figure could show.
  std::vector<long double> sum(n + 1, 0);
  for (std::size_t i = 0; i < n; ++i)
    sum[i + 1] = sum[i] + ys[i];
  std::vector<double> out(n);
  if (n == 0)
    return out;
  // Rounding in the sums must not carry a mean past the series' range.
  auto [lo, hi] = std::minmax_element(ys.begin(), ys.end());
  auto half = window / 2;
  for (std::size_t i = 0; i < n; ++i) {
    auto h = std::min({half, i, n - 1 - i});
    auto mean = (sum[i + h + 1] - sum[i - h]) / static_cast<long double>(2 * h + 1);
    out[i] = h == 0 ? ys[i] : std::clamp(static_cast<double>(mean), *lo, *hi);
  }
  return out;
}

} // namespace soma::draw
