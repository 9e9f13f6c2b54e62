#pragma once

/// @file
/// soma::critical: where a forward's time went, across machines
/// (docs/critical.md).
///
/// A forward's facts are stamped on two kinds of clock: the client's (its
/// own nodes and each trip's `left`, from the forward's start) and each
/// worker's (a remote node's `began_us`, from when the worker's session took
/// the slice). A worker's clock is put on the client's by an offset
/// estimated from the trips themselves, as NTP does with a request and its
/// answer: a trip sent at T1 by the client's clock, taken at T2 and answered
/// at T3 = T2 + held by the worker's, and back at T4 = T1 + took gives
///
///     offset = ((T2 - T1) + (T3 - T4)) / 2,   within ± ((T4 - T1) - (T3 - T2)) / 2
///
/// whatever the two ways' delays were (each is at least 0). Of a worker's
/// trips, the one with the least round trip outside the worker gives the
/// estimate and its bound. No clock service is asked.
///
/// Each forward is then one timeline on the client's clock, and its
/// critical path is walked back from its end: the activity that ended last
/// before the point reached (a node here, or a trip), then the one that
/// ended last before that began, down to the forward's start. A trip on the
/// path is cut into its wire out, its wait for the worker (queue), its nodes'
/// work there, and its wire back; time on the path in no activity is the
/// client waiting (its actors, a mailbox). The segments cover the forward's
/// took_us exactly.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "soma/export.hpp"
#include "soma/fact.hpp"
#include "soma/record.hpp"
#include "soma/store/store.hpp"

SOMA_API_BEGIN

namespace soma {

/// One worker's clock against the client's, estimated from its trips.
struct clock_estimate {
  std::string host;           ///< the worker's name in the graph (`left`'s host)
  std::int64_t offset_us = 0; ///< the worker's clock less the client's
  std::int64_t bound_us = 0;  ///< the true offset is within offset_us ± bound_us
  std::size_t trips = 0;      ///< trips with both clocks' stamps it was estimated from
  std::uint64_t forward = 0;  ///< the forward whose trip gave the estimate
  /// Its quickest trip's wire out, µs, as estimated: a trip that took longer
  /// than this to reach the worker waited for it (segment_kind::queue).
  std::int64_t wire_out_us = 0;
};

/// The clocks of the worker hosts in `facts` (one forward's facts each), by
/// host. A host whose trips have no stamps (a soma older than them) has none:
/// its trips are then taken as symmetric (wire out = wire back).
[[nodiscard]] std::map<std::string, clock_estimate>
estimate_clocks(const std::vector<record>& records, const std::vector<std::vector<fact>>& facts);

/// What a stretch of a forward's time was spent on.
enum class segment_kind {
  work,      ///< a node running (`ran`, `failed`), here or at a worker
  wire_out,  ///< a trip's value on its way to the worker
  queue,     ///< a trip waiting for the worker: in its mailbox, or taken but in no node yet (or any more)
  wire_back, ///< a trip's answer on its way back
  recall,    ///< a cached node's output read back (`recalled`)
  keep,      ///< a cached node's output written (`kept`)
  wait,      ///< the client in no activity: its actors, mailboxes, a node between others
};

/// "work", "wire out", "queue", "wire back", "recall", "keep" or "wait".
[[nodiscard]] std::string_view to_string(segment_kind k) noexcept;

/// A stretch of one forward's time, on the client's clock from its start.
struct segment {
  segment_kind kind = segment_kind::wait;
  std::string host;           ///< a worker's name, or "here" (the client)
  std::string node;           ///< work, recall and keep: the node; else empty
  std::int64_t began_us = 0;  ///< from the forward's start, by the client's clock
  std::int64_t took_us = 0;
  std::optional<std::size_t> fact; ///< the fact it came from (work, recall, keep, a trip's `left`)
};

/// A forward's facts placed on the client's clock.
struct timeline {
  /// Every node fact (`ran`, `failed`, `recalled`, `kept`) and each trip's
  /// wire out, queue and wire back, by the client's clock; a worker's
  /// facts put inside their trip by its host's offset.
  std::vector<segment> all;
  /// Its critical path, in time order: segments whose took_us add up to the
  /// forward's exactly.
  std::vector<segment> path;
};

/// The timeline of forward `r` from its facts, with the workers' `clocks`.
/// A worker's fact whose trip never came back (a forward that broke on the
/// way) is left out of both.
[[nodiscard]] timeline timeline_of(const record& r, const std::vector<fact>& facts,
                                   const std::map<std::string, clock_estimate>& clocks);

/// Which forwards `critical()` reads.
struct critical_options {
  std::size_t last = 100; ///< the run's last N forwards
};

/// Where many forwards' time went.
struct critical_report {
  std::string run;
  std::size_t forwards = 0;        ///< forwards read
  std::uint64_t first = 0, last = 0; ///< their numbers
  std::int64_t took_us = 0;        ///< their took_us, added
  std::map<std::string, clock_estimate> clocks;

  /// Time on the critical paths, by host and kind, added over the forwards.
  struct share {
    std::string host;
    segment_kind kind = segment_kind::wait;
    std::int64_t took_us = 0;
    double of_took = 0; ///< took_us over the report's took_us
  };
  std::vector<share> shares; ///< the greatest first

  /// A node's work on the critical paths.
  struct on_path {
    std::string node, host;
    std::size_t forwards = 0; ///< forwards whose path it was on
    std::int64_t took_us = 0; ///< its work on them, added
  };
  std::vector<on_path> nodes; ///< the most often first

  /// Had the slowest remote node run here: an estimate, from the same
  /// forwards' timings of it here.
  struct what_if {
    std::string node, host;     ///< the remote node with the greatest mean work, and where it ran
    std::size_t remote = 0;     ///< forwards it ran in there
    double remote_mean_us = 0;  ///< its mean work there
    double trip_mean_us = 0;    ///< the mean trip it rode (wire, queue and all its slice's work)
    std::size_t here = 0;       ///< forwards it ran in here (0: no local timings, no estimate)
    double here_mean_us = 0;    ///< its mean work here
    double took_mean_us = 0;    ///< the forwards' mean took_us, as they ran
    double estimate_mean_us = 0; ///< the same, had it run here (its trips' time on the path given back, its time here added)
  };
  std::optional<what_if> slowest; ///< none when no node ran at a worker

  /// The most a forward's facts reached past its record's took_us, as a
  /// share of that took_us: 0 unless a forward's facts disagree with its
  /// record (its path, cut to took_us, then leaves that time out).
  double worst_gap = 0;
};

/// Where the last `o.last` forwards of `run` spent their time. One read of
/// the run's tail and its fact blobs (soma::tails). Throws store_error for
/// an unknown run or a damaged store.
[[nodiscard]] critical_report critical(const store& s, std::string_view run,
                                       const critical_options& o = {});

} // namespace soma

SOMA_API_END
