#pragma once

/// @file
/// soma::fleet: one row per machine of a run, so that "what is each machine
/// doing, and was sending it there worth it" is answered in one read.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "soma/export.hpp"
#include "soma/reading.hpp"
#include "soma/store/standing.hpp"
#include "soma/store/store.hpp"

SOMA_API_BEGIN

namespace soma {

/// One machine of a run.
struct fleet_row {
  std::string host;            ///< "here", a graph host name (w1...), or a machine id nobody named
  std::string machine;         ///< the machine's id (hostname-pid) when known, else empty
  std::uint64_t slices = 0;    ///< trips there in the run
  std::int64_t took_us = 0;    ///< work done there (its ran and failed facts)
  std::int64_t waiting_us = 0; ///< round trips minus that work: the wire, the queue, the codec
  std::optional<double> busy;  ///< the machine's latest busy fraction
  std::optional<std::uint64_t> served; ///< slices it served, by its latest reading
  /// How far its latest reading is behind the newest reading of any machine
  /// (writer against writer, never the reader's clock); none without readings.
  std::optional<double> quiet_s;
  /// Whether it still reports (soma::quietness::state_of, an opinion: quiet
  /// past 3 of its reporting intervals); none without readings.
  std::optional<machine_state> state;
  /// The study a claimant claims from (its latest reading); empty for a worker.
  std::string claims;
  /// Trials a claimant finished, by its latest reading; none without readings.
  std::optional<std::uint64_t> trials;
};

/// Which machines a run's fleet lists.
struct fleet_options {
  /// Only the machines that touched the run ("here" and its graph hosts):
  /// what a view of one run shows (`soma fleet RUN`, `soma live`, the run's
  /// page; `--all-machines` there lists the rest too).
  bool only_the_run = false;
  /// The reader's clock (unix microseconds) a machine's state is judged
  /// against when every machine is silent (soma::quietness); none: this
  /// process's clock now.
  std::optional<std::int64_t> now_us;
};

/// The run's fleet: "here" (the client), each graph host in the order it
/// first appears, then (unless `only_the_run`) every machine with readings
/// in the store that the run's `machine` facts did not join to a graph host
/// (machines that served nothing here, idle ones included: the machine a
/// fleet most wants seen), by id.
///
/// A graph host is joined to a machine id only through a `machine` fact that
/// came down its wire in this run. busy and served come from that machine's
/// latest reading in the store, else from the last `machine` fact. A fleet
/// in which every writer stopped shows nothing quiet: there is no newer
/// writer to be behind.
///
/// Costs hosts()'s fetch per forward plus one scan of the latest readings.
/// Throws store_error for an unknown run or damaged bytes.
[[nodiscard]] std::vector<fleet_row> fleet(const store& s, std::string_view run,
                                           const fleet_options& options = {});

/// The same, with the machines' latest readings given: those of several
/// stores merged (soma::standing of a list of stores), for a fleet whose
/// machines report into more than one store (docs/scale.md). Costs hosts()'s
/// fetch per forward of `run` in `s`.
[[nodiscard]] std::vector<fleet_row> fleet(const store& s, std::string_view run,
                                           const std::map<std::string, reading>& latest,
                                           const fleet_options& options = {});

} // namespace soma

SOMA_API_END
