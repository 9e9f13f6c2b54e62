#pragma once

/// @file
/// An aligned text table for the `soma` command's human output: numbers
/// right-aligned so their digits line up, text left-aligned so it reads.

#include <cstdint>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

namespace soma::cli {

/// Which side of its column a cell sits on.
enum class align { left, right };

/// A column: its header and alignment.
struct column {
  std::string header;
  align side = align::left;
};

/// Rows of text under a header row, printed with every column as wide as its
/// widest cell, two spaces apart, no trailing blanks. A value type.
class table {
public:
  explicit table(std::vector<column> columns);

  /// Adds a row; a row shorter than the header is padded with empty cells,
  /// a longer one is a bug (it asserts).
  void add(std::vector<std::string> row);

  /// Whether it has no rows.
  [[nodiscard]] bool empty() const noexcept { return rows_.empty(); }

  /// Prints the header and the rows; nothing at all when there are no rows
  /// (so `--last 0` prints nothing) unless `header_when_empty`.
  void print(std::ostream& out, bool header_when_empty = false) const;

private:
  std::vector<column> columns_;
  std::vector<std::vector<std::string>> rows_;
};

/// Unix microseconds as UTC to the millisecond, e.g. 2027-01-15T08:00:10.000Z:
/// a reading is stamped by its writer's clock, which says nothing of this
/// terminal's time zone.
[[nodiscard]] std::string utc(std::int64_t us);

/// Whether `text` is a number as a fact carries one ("2.1", "-3", "1e-05"),
/// so a column of them can be right-aligned.
[[nodiscard]] bool looks_numeric(std::string_view text) noexcept;

} // namespace soma::cli
