#pragma once

/// @file
/// soma::record: what a store keeps of one forward beside its facts, and
/// (detail) what it keeps of a run beside its records. Plain values; their
/// encoding is schema/soma/detail/packed.hpp's.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "soma/export.hpp"
#include "soma/fact.hpp"
#include "soma/outcome.hpp"
#include "soma/values.hpp"

SOMA_API_BEGIN

namespace soma {

/// The small record kept per forward.
struct record {
  std::uint64_t forward = 0; ///< n within the run, from 0
  outcome state = outcome::open;
  std::uint32_t nodes = 0;   ///< distinct nodes that ran, failed or were recalled
  std::int64_t took_us = 0;  ///< the forward's took_us
  std::int64_t when_us = 0;  ///< unix microseconds when its first fact was seen
  std::vector<field> summary; ///< summarised facts' fields, flattened: {"loss.value", 2.1}

  /// `when_us` in whole unix seconds (what a run's first and last say).
  [[nodiscard]] std::int64_t when_s() const noexcept;

  friend bool operator==(const record&, const record&) = default;
};

/// A number the records of a run summarise (a loss), over the run: its
/// last (the highest-numbered forward that told it), least and greatest.
struct value_range {
  std::string key;           ///< its summary key, flattened: "loss.value"
  double last = 0;
  std::uint64_t last_forward = 0;
  double min = 0;
  double max = 0;

  /// `value` of forward `n`, told after the range's first: min, max and
  /// (for the highest n so far) last.
  void add(double value, std::uint64_t n) noexcept {
    if (value < min)
      min = value;
    if (value > max)
      max = value;
    if (n >= last_forward) {
      last = value;
      last_forward = n;
    }
  }

  friend bool operator==(const value_range&, const value_range&) = default;
};

/// One execution of a run: a recorder that wrote it, from its first write
/// on. A program run twice on one run id is two executions.
struct execution {
  std::uint64_t forward = 0; ///< its first forward's number
  std::int64_t began_us = 0; ///< its first write, unix µs by its writer's clock; 0: not known
  std::string host;          ///< where it ran (a served store's client: the client's); empty: not known
  std::uint32_t pid = 0;     ///< its process; 0: not known
  std::uint64_t recorder = 0; ///< its recorder's id: a served client reconnecting goes on with it

  friend bool operator==(const execution&, const execution&) = default;
};

namespace detail {

/// Whole seconds of unix microseconds `us`, rounded down.
[[nodiscard]] constexpr std::int64_t seconds_of(std::int64_t us) noexcept {
  return us >= 0 ? us / 1'000'000 : -((-(us + 1)) / 1'000'000) - 1;
}

/// The microseconds of `us` past seconds_of(us), 0 to 999,999: how the
/// schema keeps a time to the microsecond beside its whole seconds.
[[nodiscard]] constexpr std::uint32_t sub_second_us(std::int64_t us) noexcept {
  return static_cast<std::uint32_t>(us - seconds_of(us) * 1'000'000);
}

/// The unix microseconds of whole seconds `s` and `sub` microseconds past them.
[[nodiscard]] constexpr std::int64_t when_us_of(std::int64_t s, std::uint32_t sub) noexcept {
  return s * 1'000'000 + static_cast<std::int64_t>(sub);
}

/// A run summed up as its writer keeps it beside its records: what
/// soma::run_row says of the run, counted as detail::count_forward counts
/// (store/soma/store/readers.hpp), over every record the run holds.
struct run_totals {
  std::uint64_t forwards = 0; ///< records the run holds
  std::uint64_t broke = 0;    ///< of them, broke
  std::int64_t took_us = 0;   ///< their took_us, added
  std::int64_t first = 0;     ///< the least `when` of them (0 with no forward)
  std::int64_t last = 0;      ///< the greatest `when` of them (0 with no forward)
  /// The summarised numbers over them (value_range), in the order first told.
  std::vector<value_range> values;
  /// Whether `values` are kept: false in totals a soma before 0.4 wrote,
  /// whose writer counts the run again once.
  bool values_kept = true;
  /// When the first of them began and the last of them ended (its `when`
  /// and took_us after it), unix µs: how long the run lasted, by the wall
  /// clock. 0 in totals a soma before 0.4 wrote (values_kept is false).
  std::int64_t first_us = 0;
  std::int64_t end_us = 0;

  friend bool operator==(const run_totals&, const run_totals&) = default;
};

/// The process that writes a run, as the run's metadata keeps it: enough
/// for a reader on the same machine to tell whether it still lives
/// (soma/store/run_status.hpp).
struct run_writer {
  std::string host;          ///< its hostname
  std::string boot;          ///< its machine's boot id (/proc/sys/kernel/random/boot_id)
  std::uint32_t pid = 0;
  std::uint64_t started = 0; ///< its start, clock ticks after boot: a pid used again differs
  /// A served store's server writing for a client: the client's machine id
  /// (hostname-pid); empty for a recorder writing its own store.
  std::string client;

  friend bool operator==(const run_writer&, const run_writer&) = default;
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
  /// What the run was (its recorder's params, or its trial's), and words to
  /// find it by. Empty in runs recorded without them.
  values params;
  std::vector<std::string> tags;
  /// The process that wrote the run last. None in runs an older soma wrote.
  std::optional<run_writer> writer;
  /// When a served store's server saw the client that wrote the run go
  /// without closing it (unix µs, the server's clock). A later writer clears it.
  std::optional<std::int64_t> dropped_us;
  /// Who wrote it, one after another (execution). Empty in runs an older
  /// soma wrote last.
  std::vector<soma::execution> executions;
};

} // namespace detail

inline std::int64_t record::when_s() const noexcept { return detail::seconds_of(when_us); }

} // namespace soma

SOMA_API_END
