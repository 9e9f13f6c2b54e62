#pragma once

/// @file
/// CSV as `soma ... --csv` prints it and the page downloads it (RFC 4180:
/// comma-separated, a header line first, a cell quoted only when it must
/// be), made by the same functions for both, so a file from the page and
/// one from the command hold the same rows.

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "soma/web/json.hpp"

namespace soma::web {

/// A number as soma's tables show a value told: at most six significant
/// digits (C's "%.6g": 2.1, 1.70871, 3e+12, 1e-05), so 1.9600000000000002
/// is 1.96. `--json` keeps the value as told.
[[nodiscard]] std::string readable_number(double x);

/// One CSV line of `cells` and its "\n": a cell holding a comma, a double
/// quote or a line break is quoted, its quotes doubled; any other as it is.
[[nodiscard]] std::string csv_line(const std::vector<std::string>& cells);

/// CSV of `array`, JSON objects (what `--json` prints): a header of every
/// field in the order first seen, then a line per object. A nested object's
/// fields are columns of their own ("params.lr"); an array's items are
/// joined with ';'; a number is as in the JSON (every digit it needs to read
/// back the same), a text as it is, null and a missing field empty.
[[nodiscard]] std::string csv_of(const json& array);

/// `soma curve RUN NAME --csv` and the page's download: csv_of the points
/// as `--json` has them, so the line "forward,value", then a line per point.
[[nodiscard]] std::string curve_csv(const std::vector<std::pair<std::uint64_t, double>>& points);

} // namespace soma::web
