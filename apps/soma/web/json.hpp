#pragma once

/// @file
/// The readers' rows as JSON objects whose keys are the readers' field
/// names, in the readers' order (ordered_json: a sorted object would put
/// "broke" before "run"). Counts and times are JSON numbers, and so is a
/// fact's field that holds a number (a real that is not finite is the
/// string "nan", "inf" or "-inf", which JSON has no number for); a text is a
/// string.

#include <cstdint>
#include <map>
#include <string>
#include <vector>
#include <iosfwd>
#include <utility>

#include <nlohmann/json.hpp>

#include "soma/fact.hpp"
#include "soma/store/cache.hpp"
#include "soma/store/critical.hpp"
#include "soma/store/fleet.hpp"
#include "soma/store/readers.hpp"
#include "soma/store/readings.hpp"
#include "soma/store/trials.hpp"
#include "soma/health/opinion.hpp"
#include "soma/health/replay.hpp"
#include "soma/trials/rows.hpp"

namespace soma::web {

using json = nlohmann::ordered_json;

/// A fact's value: a JSON number for an integer or a finite real, else a
/// string (a text; "nan", "inf", "-inf").
[[nodiscard]] json json_of(const scalar& x);

/// {"run", "forwards", "broke", "took_us", "first", "last"}.
[[nodiscard]] json json_of(const run_row& x);

/// One execution of a run: where it began (forward, began_us), and who
/// (host, pid); null where not known (a run an older soma wrote).
[[nodiscard]] json json_of(const execution& x);

/// {"forward", "state", "nodes", "took_us", <summary keys, typed>, "when"},
/// the seed's order.
[[nodiscard]] json json_of(const record& x);

/// json_of(x) with `"total": total` last, written straight as text: what a
/// live stream sends for each forward, at a fraction of building the object
/// (the same JSON as json_of(x) with the key added, parsed back).
void append_json(std::string& out, const record& x, std::uint64_t total);

/// {"forward", "value"}, both numbers.
[[nodiscard]] json json_of(const std::pair<std::uint64_t, double>& point);

/// {"fact": name, <fields in order, typed>}.
[[nodiscard]] json json_of(const fact& x);

/// {"node", "ran", "recalled", "failed", "took_us", "hosts", "devices", "mean_us"}.
[[nodiscard]] json json_of(const node_row& x);

/// {"node", "type", "version", "bytes", "kept_at"}.
[[nodiscard]] json json_of(const cache_row& x);

/// {"id", "busy", "memory", "cores", "up_us", "served", "when_us", "claims",
/// "trials"}; claims is null for a worker.
[[nodiscard]] json json_of(const reading& x);

/// Where a run's forwards spent their time (soma critical): its clocks,
/// shares, nodes on the path and the what-if, times in µs.
[[nodiscard]] json json_of(const critical_report& x);

/// {"host", "machine", "slices", "took_us", "waiting_us", "busy", "served",
/// "quiet_s", "claims", "trials"}; what is not known (a machine never joined, a host without
/// readings) is null.
[[nodiscard]] json json_of(const fleet_row& x);

/// {name: value, ...}: a trial's parameters or result, each value a JSON
/// number, text or flag.
[[nodiscard]] json json_of(const values& xs);

/// {"study", "trials", "waiting", "claimed", "done", "broke", "abandoned",
/// "function", "created_us"}; function is null when the study names none.
[[nodiscard]] json json_of(const study_summary& x);

/// An opinion: {"opinion" (its state), "rule", "kind", "subject", "run",
/// "measure", "value", "threshold", "threshold_is", "since_us", "for_s",
/// "says"}. A value that is not finite is the text "inf" or "nan".
[[nodiscard]] json json_of(const health::opinion& x);
/// An episode of a replay: its edges as unix microseconds (firing_us and
/// cleared_us null when it never fired, or held at the last step).
[[nodiscard]] json json_of(const health::episode& x);
/// A difference of two replays, flat for CSV: what differs, the rule and
/// subject, then each side's edges prefixed a_ and b_ (null for the side
/// without an episode), and moved_s.
[[nodiscard]] json json_of(const health::difference& x);

/// The machines' latest readings (soma::standing), each with its quiet_s
/// (writer against writer) and its state (soma::quietness::state_of, judged
/// against `now_us`, the reader's clock, when every machine is silent), in
/// id order.
[[nodiscard]] json standing_json(const std::map<std::string, reading>& latest,
                                 std::int64_t now_us = reader_now_us());

/// A study's trials, one object each with its abandoned attempts; a claimed
/// trial's claimant's quiet_s from `latest` (null without a reading).
[[nodiscard]] json trials_json(const std::vector<trial_row>& rows,
                               const std::map<std::string, reading>& latest);

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

} // namespace soma::web
