#pragma once

/// @file
/// A whole run's values in bounded memory, for `soma live`'s sparkline: the
/// least and the greatest value told in each span of forwards.

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
/// `capacity` columns however long the run; nothing is averaged away, the
/// range each column shows is the range of what fell in it. A plain value.
class value_columns {
public:
  /// One column: the range of the values that fell in it, if any did.
  struct column {
    double lo = 0, hi = 0;
    bool any = false;

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
/// a character and four dots a row: each column's dots run from its least
/// to its greatest value, on a scale from `lo` to `hi`; an empty column is
/// a space.
[[nodiscard]] std::vector<std::string> braille(const std::vector<value_columns::column>& cols,
                                               double lo, double hi, std::size_t rows);

} // namespace soma::cli
