#include "soma/sweep.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace soma {

namespace {

template <class Axes>
void check_names(const Axes& axes) {
  for (std::size_t i = 0; i < axes.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (axes[i].first == axes[j].first)
        throw std::invalid_argument("the parameter '" + axes[i].first
                                    + "' is given twice; each parameter has one axis");
}

// SplitMix64: a generator fixed by its definition, so that a seed means the
// same trials everywhere.
std::uint64_t next(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

} // namespace

std::vector<values> grid(const std::vector<std::pair<std::string, std::vector<value>>>& axes) {
  check_names(axes);
  std::vector<values> out{values{}};
  for (auto& [name, xs] : axes) {
    if (xs.empty())
      throw std::invalid_argument("the grid's axis '" + name + "' has no values; give it one or more");
    std::vector<values> wider;
    wider.reserve(out.size() * xs.size());
    for (auto& partial : out)
      for (auto& x : xs) {
        auto v = partial;
        v.set(name, x);
        wider.push_back(std::move(v));
      }
    out = std::move(wider);
  }
  if (axes.empty())
    out.clear();
  return out;
}

sampled sampled::uniform(double lo, double hi) {
  if (!(lo < hi) || !std::isfinite(lo) || !std::isfinite(hi))
    throw std::invalid_argument("sampled::uniform(lo, hi) needs finite lo < hi");
  sampled s;
  s.kind_ = kind::uniform;
  s.lo_ = lo;
  s.hi_ = hi;
  return s;
}

sampled sampled::log_uniform(double lo, double hi) {
  if (!(lo > 0 && lo < hi) || !std::isfinite(hi))
    throw std::invalid_argument("sampled::log_uniform(lo, hi) needs 0 < lo < hi, finite");
  sampled s;
  s.kind_ = kind::log_uniform;
  s.lo_ = lo;
  s.hi_ = hi;
  return s;
}

sampled sampled::integers(std::int64_t lo, std::int64_t hi) {
  if (lo > hi)
    throw std::invalid_argument("sampled::integers(lo, hi) needs lo <= hi");
  sampled s;
  s.kind_ = kind::integers;
  s.ilo_ = lo;
  s.ihi_ = hi;
  return s;
}

sampled sampled::choice(std::vector<value> xs) {
  if (xs.empty())
    throw std::invalid_argument("sampled::choice needs one value or more");
  sampled s;
  s.kind_ = kind::choice;
  s.xs_ = std::move(xs);
  return s;
}

value sampled::at(double u) const {
  switch (kind_) {
    case kind::uniform: return lo_ + u * (hi_ - lo_);
    case kind::log_uniform: return std::exp(std::log(lo_) + u * (std::log(hi_) - std::log(lo_)));
    case kind::integers: {
      auto span = static_cast<double>(ihi_) - static_cast<double>(ilo_) + 1;
      auto k = static_cast<std::int64_t>(std::floor(u * span));
      return std::min(ilo_ + k, ihi_);
    }
    case kind::choice: {
      auto k = static_cast<std::size_t>(u * static_cast<double>(xs_.size()));
      return xs_[std::min(k, xs_.size() - 1)];
    }
  }
  return 0.0;
}

std::vector<values> samples(std::size_t n, std::uint64_t seed,
                            const std::vector<std::pair<std::string, sampled>>& axes) {
  check_names(axes);
  std::vector<values> out;
  out.reserve(n);
  std::uint64_t state = seed;
  for (std::size_t i = 0; i < n; ++i) {
    values v;
    for (auto& [name, how] : axes) {
      // 53 random bits as a double in [0, 1).
      double u = static_cast<double>(next(state) >> 11) * 0x1.0p-53;
      v.set(name, how.at(u));
    }
    out.push_back(std::move(v));
  }
  return out;
}

} // namespace soma
