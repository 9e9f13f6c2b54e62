#pragma once

/// @file
/// A whole run's values in bounded memory, for `soma live`'s sparkline: the
/// least, the greatest and the mean value told in each span of forwards.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace soma::cli {

/// The values of a run over its forwards, as the least and the greatest
/// value of each column of `span()` forwards (column i holds forwards
/// i * span() to (i + 1) * span() - 1). When the run outgrows the columns,
/// pairs of columns merge and the span doubles, so memory stays at
/// `capacity` columns however long the run; each column keeps the range of
/// what fell in it and its mean. A plain value.
class value_columns {
public:
  /// One column: the range of the values that fell in it, if any did.
  struct column {
    double lo = 0, hi = 0;
    bool any = false;
    double sum = 0;          ///< of the values that fell in it
    std::uint64_t count = 0; ///< how many did
    /// Their mean.
    [[nodiscard]] double mean() const noexcept {
      return count ? sum / static_cast<double>(count) : lo;
    }

    /// Widens the range to hold `other`'s.
    void merge(const column& other);
  };

  /// At most 1024 columns.
  value_columns() : value_columns(1024) {}

  /// At most `capacity` columns (rounded up to an even number, 2 at least).
  explicit value_columns(std::size_t capacity);

  /// Counts value `x` of forward `n`, in any order; a value that is not
  /// finite (NaN, infinity) cannot be drawn and is not counted.
  void add(std::uint64_t n, double x);

  /// Forwards per column: 1, then doubling as the run outgrows the columns.
  [[nodiscard]] std::uint64_t span() const noexcept { return span_; }

  /// The range of every value counted, if any was.
  [[nodiscard]] std::optional<std::pair<double, double>> range() const;

  /// Forwards 0 to `forwards` - 1 as at most `width` columns of equal span
  /// (a whole number of this one's columns each), the run's end last; the
  /// last may be partly filled.
  [[nodiscard]] std::vector<column> fitted(std::size_t width, std::uint64_t forwards) const;

private:
  std::vector<column> columns_;
  std::uint64_t span_ = 1;
  column all_;
};

/// `cols` drawn in braille as `rows` lines of text (rows >= 1), two columns
/// a character and four dots a row: each column a dot at its mean, on a
/// scale from `lo` to `hi` (the run's range, which the line above it
/// states), so that a long or noisy series reads as a curve, not as a block
/// of every dot; an empty column is a space.
[[nodiscard]] std::vector<std::string> braille(const std::vector<value_columns::column>& cols,
                                               double lo, double hi, std::size_t rows);

} // namespace soma::cli
