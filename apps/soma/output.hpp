#pragma once

/// @file
/// How the `soma` command prints rows for a script: one JSON array
/// (`--json`), or CSV (`--csv`) with the same fields as columns; and which
/// of a long table's rows it prints (`--first N`, `--last N`).

#include <algorithm>
#include <cstddef>
#include <iosfwd>
#include <vector>

#include "invocation.hpp"
#include "soma/web/json.hpp"

namespace soma::cli {

/// Whether the command prints for a script (--json or --csv), not a table.
[[nodiscard]] inline bool for_script(const invocation& inv) noexcept { return inv.json || inv.csv; }

/// Prints `array`, JSON objects, as `inv` asks: the JSON array itself, or
/// CSV (web::csv_of: the same fields as columns).
void print_rows(std::ostream& out, const invocation& inv, const web::json& array);

/// The same for rows that web::json_of() makes objects of.
template <class Rows>
void print_rows(std::ostream& out, const invocation& inv, const Rows& rows) {
  auto array = web::json::array();
  for (auto& row : rows)
    array.push_back(web::json_of(row));
  print_rows(out, inv, array);
}

/// Keeps the first or the last rows `inv` asks for (--first N, --last N).
template <class T>
void keep_asked(std::vector<T>& rows, const invocation& inv) {
  if (inv.first && rows.size() > *inv.first)
    rows.resize(*inv.first);
  if (inv.last && rows.size() > *inv.last)
    rows.erase(rows.begin(), rows.end() - static_cast<std::ptrdiff_t>(*inv.last));
}

} // namespace soma::cli
