#include "soma/backoff.hpp"

#include <algorithm>

namespace soma {

backoff::backoff(limits l, std::uint64_t seed) : limits_(l), draw_(seed) {
  if (limits_.first.count() < 1)
    limits_.first = std::chrono::milliseconds{1};
  limits_.cap = std::max(limits_.cap, limits_.first);
}

std::chrono::milliseconds backoff::next() {
  // Doubled per failure, up to the cap (the shift is bounded before it can
  // overflow: 2^20 times any first wait is past any cap worth having).
  auto doublings = std::min(failures_, 20u);
  auto full = std::min<std::int64_t>(limits_.first.count() << doublings, limits_.cap.count());
  if (failures_ < 1000)
    ++failures_;
  std::uniform_int_distribution<std::int64_t> between{(full + 1) / 2, full};
  return std::chrono::milliseconds{between(draw_)};
}

} // namespace soma
