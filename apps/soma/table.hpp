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

/// Unix seconds as UTC to the second, ISO 8601: 2026-12-02T01:23:45Z.
[[nodiscard]] std::string utc_seconds(std::int64_t seconds);

/// A duration in microseconds for a person, in the unit that fits it, three
/// significant digits below a minute: 850µs, 12.3ms, 1.25s, 2m05s, 3h12m,
/// 2d03h. Tables show these; `--json` keeps the raw microseconds.
[[nodiscard]] std::string duration(double us);

/// A number a fact told, for a person: at most six significant digits
/// (1.9600000000000002 is 1.96, 3e12 is 3e+12); text that is not a number
/// is returned as it is. `--json` keeps the value as told.
[[nodiscard]] std::string readable(std::string_view told);

/// Whether `text` is a number as a fact carries one ("2.1", "-3", "1e-05"),
/// so a column of them can be right-aligned.
[[nodiscard]] bool looks_numeric(std::string_view text) noexcept;

/// `x` with `digits` digits after the point ("0.25", "12"): a load, a
/// number of seconds or milliseconds.
[[nodiscard]] std::string decimal(double x, int digits = 1);

/// `xs` joined by commas ("w1,w2"), or "-" when there are none.
[[nodiscard]] std::string list(const std::vector<std::string>& xs);

} // namespace soma::cli
