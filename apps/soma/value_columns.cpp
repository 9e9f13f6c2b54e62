#include "value_columns.hpp"

#include <algorithm>
#include <cmath>

namespace soma::cli {

void value_columns::column::merge(const column& other) {
  if (!other.any)
    return;
  lo = any ? std::min(lo, other.lo) : other.lo;
  hi = any ? std::max(hi, other.hi) : other.hi;
  any = true;
  sum += other.sum;
  count += other.count;
}

value_columns::value_columns(std::size_t capacity)
  : columns_(std::max<std::size_t>(2, capacity + capacity % 2)) {}

void value_columns::add(std::uint64_t n, double x) {
  if (!std::isfinite(x))
    return;
  while (n / span_ >= columns_.size()) {
    // Outgrown: column 2i and 2i+1 become column i, of twice the span.
    auto half = columns_.size() / 2;
    for (std::size_t i = 0; i < half; ++i) {
      auto merged = columns_[2 * i];
      merged.merge(columns_[2 * i + 1]);
      columns_[i] = merged;
    }
    std::fill(columns_.begin() + static_cast<std::ptrdiff_t>(half), columns_.end(), column{});
    span_ *= 2;
  }
  column one{x, x, true, x, 1};
  columns_[n / span_].merge(one);
  all_.merge(one);
}

std::optional<std::pair<double, double>> value_columns::range() const {
  if (!all_.any)
    return std::nullopt;
  return std::pair{all_.lo, all_.hi};
}

std::vector<value_columns::column> value_columns::fitted(std::size_t width,
                                                         std::uint64_t forwards) const {
  if (width == 0 || forwards == 0)
    return {};
  auto needed = (forwards + span_ - 1) / span_; // this one's columns the run covers
  auto k = (needed + width - 1) / width;        // of them in each drawn column
  std::vector<column> out((needed + k - 1) / k);
  for (std::uint64_t i = 0; i < needed && i < columns_.size(); ++i)
    out[i / k].merge(columns_[i]);
  return out;
}

std::vector<std::string> braille(const std::vector<value_columns::column>& cols, double lo,
                                 double hi, std::size_t rows) {
  rows = std::max<std::size_t>(rows, 1);
  auto levels = static_cast<long>(4 * rows);
  // The dot for value x: 0 at the bottom to levels - 1 at the top, equal
  // bands of the scale; a flat series sits in the middle.
  auto level = [&](double x) {
    if (!(hi > lo))
      return levels / 2 - 1;
    return std::clamp(static_cast<long>(std::floor((x - lo) / (hi - lo) * static_cast<double>(levels))),
                      0L, levels - 1);
  };
  // Braille's dot bits, by dot row from the top, for the left and the right column.
  static constexpr unsigned left[] = {0x01, 0x02, 0x04, 0x40};
  static constexpr unsigned right[] = {0x08, 0x10, 0x20, 0x80};
  std::vector<std::string> out(rows);
  for (std::size_t c = 0; c < cols.size(); c += 2) {
    std::vector<unsigned> cell(rows, 0);
    for (std::size_t side = 0; side < 2 && c + side < cols.size(); ++side) {
      auto& col = cols[c + side];
      if (!col.any)
        continue;
      auto l = level(col.mean());
      auto row = rows - 1 - static_cast<std::size_t>(l / 4); // from the top
      auto dot = static_cast<std::size_t>(3 - l % 4);
      cell[row] |= side == 0 ? left[dot] : right[dot];
    }
    for (std::size_t r = 0; r < rows; ++r) {
      if (cell[r] == 0) {
        out[r] += ' ';
        continue;
      }
      auto code = 0x2800u + cell[r]; // U+2800..U+28FF as UTF-8
      out[r] += static_cast<char>(0xE0 | (code >> 12));
      out[r] += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out[r] += static_cast<char>(0x80 | (code & 0x3F));
    }
  }
  return out;
}

} // namespace soma::cli
