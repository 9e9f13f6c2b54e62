#pragma once

/// @file
/// The readers' rows as JSON objects whose keys are the readers' field
/// names, in the readers' order (ordered_json: a sorted object would put
/// "broke" before "run"). Counts and times are JSON numbers; what a fact
/// said stays the text it was told, as soma::to_json writes it.

#include <cstdint>
#include <iosfwd>
#include <utility>

#include <nlohmann/json.hpp>

#include "soma/fact.hpp"
#include "soma/store/cache.hpp"
#include "soma/store/fleet.hpp"
#include "soma/store/readers.hpp"
#include "soma/store/readings.hpp"

namespace soma::cli {

using json = nlohmann::ordered_json;

/// {"run", "forwards", "broke", "took_us", "first", "last"}.
[[nodiscard]] json json_of(const run_row& x);

/// {"forward", "state", "nodes", "took_us", <summary keys as text>, "when"},
/// the seed's order.
[[nodiscard]] json json_of(const record& x);

/// {"forward", "value"}, both numbers.
[[nodiscard]] json json_of(const std::pair<std::uint64_t, double>& point);

/// {"fact": name, <fields in order, as text>}.
[[nodiscard]] json json_of(const fact& x);

/// {"node", "ran", "recalled", "failed", "took_us", "hosts", "devices", "mean_us"}.
[[nodiscard]] json json_of(const node_row& x);

/// {"node", "type", "version", "bytes", "kept_at"}.
[[nodiscard]] json json_of(const cache_row& x);

/// {"id", "busy", "memory", "cores", "up_us", "served", "when_us", "claims",
/// "trials"}; claims is null for a worker.
[[nodiscard]] json json_of(const reading& x);

/// {"host", "machine", "slices", "took_us", "waiting_us", "busy", "served",
/// "quiet_s", "claims", "trials"}; what is not known (a machine never joined, a host without
/// readings) is null.
[[nodiscard]] json json_of(const fleet_row& x);

/// Prints one JSON array (indented, newline-terminated).
void print_json_array(std::ostream& out, const json& array);

/// Prints `rows` as one JSON array (indented, newline-terminated): `[]` when
/// there are none, so a script always gets something to parse.
template <class Rows>
void print_json(std::ostream& out, const Rows& rows) {
  auto array = json::array();
  for (auto& row : rows)
    array.push_back(json_of(row));
  print_json_array(out, array);
}

} // namespace soma::cli
