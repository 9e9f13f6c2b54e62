#pragma once

/// @file
/// The trials of a sweep, made for soma::add_trials (docs/trials.md): every
/// combination of some values (grid), or seeded random samples (samples).

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "soma/export.hpp"
#include "soma/values.hpp"

SOMA_API_BEGIN

namespace soma {

/// Every combination of the axes' values, the first axis changing slowest:
/// grid({{"lr", {0.1, 0.01}}, {"depth", {2, 4}}}) is lr=0.1,depth=2;
/// lr=0.1,depth=4; lr=0.01,depth=2; lr=0.01,depth=4. Throws
/// std::invalid_argument for an axis with no values or a name given twice.
[[nodiscard]] std::vector<values>
grid(const std::vector<std::pair<std::string, std::vector<value>>>& axes);

/// How samples() draws one parameter.
class sampled {
public:
  /// A real, uniform in [lo, hi).
  static sampled uniform(double lo, double hi);
  /// A real whose logarithm is uniform: lo, hi > 0 (a learning rate).
  static sampled log_uniform(double lo, double hi);
  /// A whole number, uniform in [lo, hi].
  static sampled integers(std::int64_t lo, std::int64_t hi);
  /// One of `xs`, each as likely.
  static sampled choice(std::vector<value> xs);

  /// The value for a uniform `u` in [0, 1).
  [[nodiscard]] value at(double u) const;

private:
  enum class kind { uniform, log_uniform, integers, choice } kind_ = kind::uniform;
  double lo_ = 0, hi_ = 1;
  std::int64_t ilo_ = 0, ihi_ = 0;
  std::vector<value> xs_;
};

/// `n` samples of the axes, drawn from `seed`: the same seed draws the same
/// random numbers on every machine and build (SplitMix64, not the standard
/// library's distributions, whose results differ between implementations);
/// uniform, integers and choice map them exactly, log_uniform through
/// std::log and std::exp, which maths libraries may round differently in
/// the last bit.
[[nodiscard]] std::vector<values>
samples(std::size_t n, std::uint64_t seed, const std::vector<std::pair<std::string, sampled>>& axes);

} // namespace soma

SOMA_API_END
