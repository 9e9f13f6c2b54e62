#pragma once

/// @file
/// soma::record: what a store keeps of one forward beside its facts, and
/// (detail) what it keeps of a run beside its records. Plain values; their
/// encoding is schema/soma/detail/packed.hpp's.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "soma/fact.hpp"
#include "soma/outcome.hpp"

namespace soma {

/// The small record kept per forward.
struct record {
  std::uint64_t forward = 0; ///< n within the run, from 0
  outcome state = outcome::open;
  std::uint32_t nodes = 0;   ///< distinct nodes that ran, failed or were recalled
  std::int64_t took_us = 0;  ///< the forward's took_us
  std::int64_t when = 0;     ///< unix seconds when its first fact was seen
  std::vector<field> summary; ///< summarised facts' fields, flattened: {"loss.value", 2.1}

  friend bool operator==(const record&, const record&) = default;
};

namespace detail {

/// A run summed up as its writer keeps it beside its records: what
/// soma::run_row says of the run, counted as detail::count_forward counts
/// (store/soma/store/readers.hpp), over every record the run holds.
struct run_totals {
  std::uint64_t forwards = 0; ///< records the run holds
  std::uint64_t broke = 0;    ///< of them, broke
  std::int64_t took_us = 0;   ///< their took_us, added
  std::int64_t first = 0;     ///< the least `when` of them (0 with no forward)
  std::int64_t last = 0;      ///< the greatest `when` of them (0 with no forward)

  friend bool operator==(const run_totals&, const run_totals&) = default;
};

/// A run's metadata (meta/run/<id>).
struct run_meta {
  /// The fact names every record of the run summarises.
  std::vector<std::string> summarising;
  /// The number after the last forward written: a run's forwards are
  /// 0 .. next - 1, so a missing one shows. None in stores of format 1.
  std::optional<std::uint64_t> next;
  /// When the run's recorder closed, unix microseconds by its clock: its
  /// last batch was written. None while a recorder writes it, for a run
  /// whose recorder's process died, and in stores written before soma
  /// marked it. A later recorder of the run clears it.
  std::optional<std::int64_t> ended_us;
  /// The run summed up, kept by its writer in the transaction that writes
  /// its records, so that listing runs reads no record. None in runs an
  /// older soma wrote last (readers count their records instead).
  std::optional<run_totals> totals;
};

} // namespace detail

} // namespace soma
