#pragma once

/// @file
/// soma::hosts: per host, the time a run's nodes worked there and the time
/// spent waiting on the wire to get them there and back.

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "soma/export.hpp"
#include "soma/fact.hpp"
#include "soma/store/store.hpp"

SOMA_API_BEGIN

namespace soma {

/// One host's share of a run.
struct host_row {
  std::string host;            ///< "here" for this process, else the graph's name (`.at()`)
  std::uint64_t slices = 0;    ///< trips there: its `left` facts
  std::int64_t took_us = 0;    ///< work there: took_us of its `ran` and `failed` facts
  std::int64_t waiting_us = 0; ///< its trips' took_us minus the work; 0 for "here"
};

/// Per host, in order of first appearance ("here" first when anything ran
/// here): work counted from `ran` and `failed` facts (their `host` field,
/// none meaning here), trips from `left` facts. `waiting_us` is the round
/// trip as the client saw it minus what ran over there: the wire, the queue
/// and the codec; never below 0. A fetch per forward, in one read
/// transaction. Throws store_error for an unknown run or a damaged blob.
[[nodiscard]] std::vector<host_row> hosts(const store& s, std::string_view run);

namespace detail {

/// Adds up hosts' shares forward by forward, as hosts() does: what a reader
/// of some of a run's forwards (soma/health/) counts with.
class host_tally {
public:
  /// Counts one forward's facts.
  SOMA_API_LOCAL void add(const std::vector<fact>& told);

  /// The rows so far ("here" first), waiting_us computed.
  [[nodiscard]] SOMA_API_LOCAL std::vector<host_row> rows() const;

  /// Adds what another tally counted (its sums(), trips() and machines()),
  /// as if this one had counted it after what it holds.
  SOMA_API_LOCAL void merge(const std::vector<host_row>& rows, const std::vector<std::int64_t>& trips,
                            const std::map<std::string, fact>& machines);

  /// The last `machine` fact each graph host sent down a wire.
  [[nodiscard]] const std::map<std::string, fact>& machines() const noexcept { return machines_; }

  /// The rows so far, waiting_us not computed, and per row its trips'
  /// took_us added: what merge() takes.
  [[nodiscard]] const std::vector<host_row>& sums() const noexcept { return rows_; }
  [[nodiscard]] std::vector<std::int64_t> trips() const {
    auto out = trips_;
    out.resize(rows_.size());
    return out;
  }

private:
  std::vector<host_row> rows_;
  std::vector<std::int64_t> trips_; // per row: its left facts' took_us, added
  std::map<std::string, fact> machines_;
};

/// hosts() and, beside it, the last `machine` fact each graph host sent
/// down a wire in the run: the only join between a graph's name for a
/// worker and the worker's own id. One read, as hosts().
struct host_scan {
  std::vector<host_row> rows;
  std::map<std::string, fact> machines; ///< graph host -> its last `machine` fact
};
[[nodiscard]] SOMA_API_LOCAL host_scan scan_hosts(const store& s, std::string_view run);

} // namespace detail

} // namespace soma

SOMA_API_END
