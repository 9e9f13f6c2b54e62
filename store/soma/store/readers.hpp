#pragma once

/// @file
/// Reading a store back, at a known price.
///
/// | reader        | answers                          | costs                         |
/// | ------------- | -------------------------------- | ----------------------------- |
/// | runs          | what is in here at all           | one read per run (its writer keeps its totals) |
/// | forwards      | step by step                     | one scan of the run's records |
/// | curve         | the series somebody plots        | one scan if summarised, else a fetch per forward (curve_costs says which) |
/// | facts         | everything one step did          | one fetch                     |
/// | nodes         | who spent the time, added up     | a fetch per forward read      |
///
/// Every reader reads in short read transactions, one per bounded part of
/// its answer (soma/store/answers.hpp), so no reader holds a snapshot of
/// the store open for long, whatever writers do meanwhile. Each throws
/// one exception, soma::store_error, naming the store and what is missing or
/// damaged (an unknown run, a forward the run does not have, a record or blob
/// that does not decode, a served store that cannot be reached), and what to
/// do. A served store (`soma://`) answers on its own host
/// (soma/store/answers.hpp): only the answer crosses the wire, and a long
/// one comes in bounded parts, each its own read transaction there, so a
/// served store adds a round trip per part to the price. A reader that
/// reads in parts reads as many forwards as the run had when its first part
/// was read.

#include <algorithm>
#include <cstdint>
#include <iosfwd>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "soma/export.hpp"
#include "soma/fact.hpp"
#include "soma/record.hpp"
#include "soma/store/run_status.hpp"
#include "soma/store/store.hpp"
#include "soma/trials/rows.hpp"

SOMA_API_BEGIN

namespace soma {

/// The trial a run was recorded for (soma/store/trials.hpp), as it stands.
struct run_trial {
  std::string study;
  std::uint64_t number = 0;
  /// The trial's state (to_string(trial_state): waiting, claimed, done,
  /// broke) when this run is its current attempt's; "handed back" when it
  /// is an earlier attempt's.
  std::string state;
  /// broke: what its function threw; handed back: why ("its claimant's
  /// readings were 1.6 s behind ...", the attempt's reason without the
  /// "handed back: " it keeps in the trial).
  std::string error;
};

/// One run, summed up.
struct run_row {
  std::string run;
  std::uint64_t forwards = 0;
  std::uint64_t broke = 0;
  std::int64_t took_us = 0; ///< all its forwards' took_us, added
  std::int64_t first = 0;   ///< unix seconds of its first forward
  std::int64_t last = 0;    ///< unix seconds of its last forward
  /// How long it lasted by the wall clock, µs: from when its first forward
  /// began to when its last ended (not `took_us`, its forwards' time
  /// added); none for a run a soma before 0.4 wrote last.
  std::optional<std::int64_t> duration_us;
  values params;                  ///< what the run was (recorder_options::params, or its trial's)
  std::vector<std::string> tags;  ///< words to find it by (recorder_options::tags)
  run_status status = run_status::unknown; ///< where it stands, judged where the store is
  std::string how;                ///< how its status is known, in words
  std::optional<std::int64_t> ended_us; ///< when its recorder closed it (unix µs)
  /// The trial it was recorded for, when a trial gave it (a run's own
  /// forwards can all be ok while its trial broke: "diverged").
  std::optional<run_trial> trial;
  /// Who wrote it, one after another: a program that recorded it twice is
  /// two executions, the second from the forward it began at. Empty for a
  /// run an older soma wrote last (execution_count() counts it as one).
  std::vector<execution> executions;

  /// The numbers its records summarise (a loss), each over the run: last,
  /// least and greatest (value_range), in the order first told. Empty for a
  /// run a soma before 0.4 wrote last.
  std::vector<value_range> summary_values;

  /// When its first forward began and its last ended, unix µs (0: not
  /// known): what duration_us is made of, as count_forward counts them.
  std::int64_t first_us = 0, end_us = 0;

  /// How many executions wrote it: at least 1 once it has a forward.
  [[nodiscard]] std::size_t execution_count() const noexcept {
    return std::max<std::size_t>(executions.size(), forwards > 0 ? 1 : 0);
  }
};

/// Every run in the store, in key order. One read per run: its writer
/// keeps each run's totals beside its records (a run an older soma wrote
/// last is counted from its records once). Damage in a record is `soma
/// check`'s to find, not the listing's.
[[nodiscard]] std::vector<run_row> runs(const store& s);

/// Every record of `run`, in forward order. One scan of the run.
[[nodiscard]] std::vector<record> forwards(const store& s, std::string_view run);

/// Some of a run's forwards, and how many it has.
struct forward_page {
  std::uint64_t total = 0;     ///< the run's forwards, all of them
  std::vector<record> records; ///< those asked for, in forward order
};

/// The forwards of `run` from forward `from` on, at most `count` of them,
/// and how many the run has: a seek and `count` records, whatever the run's
/// length (what a paged view and a live one read). Past the end, no records.
[[nodiscard]] forward_page forwards(const store& s, std::string_view run, std::uint64_t from,
                                    std::size_t count);

/// One run summed up (the row runs() has for it): one read of its totals.
[[nodiscard]] run_row run_summary(const store& s, std::string_view run);

/// Whether curve() reads records (`scan`: the recorder summarised the fact)
/// or every forward's blob (`fetch`).
enum class curve_cost { scan, fetch };

/// "scan" or "fetch".
[[nodiscard]] std::string_view to_string(curve_cost x) noexcept;

/// Writes to_string(x).
std::ostream& operator<<(std::ostream& out, curve_cost x);

/// How curve(s, run, name) will read.
[[nodiscard]] curve_cost curve_costs(const store& s, std::string_view run,
                                     std::string_view name = "loss");

/// The series of `name` over the run: (forward, value) for every forward
/// that told it. `name` is a fact ("loss", meaning its "value" field) or a
/// fact and field ("loss.value"). When a forward told it more than once, the
/// last counts. Throws when a value is not a number. When `took` is given,
/// it says which way this very call read (what curve_costs would have said).
[[nodiscard]] std::vector<std::pair<std::uint64_t, double>>
curve(const store& s, std::string_view run, std::string_view name = "loss",
      curve_cost* took = nullptr);

/// A curve as columns, what a notebook makes arrays of: each point's
/// forward, its value, and when its forward was (the record's when_us).
struct curve_columns {
  std::vector<std::uint64_t> forward;
  std::vector<double> value;
  /// Beside `value`; empty when a served store of a soma before 0.5
  /// answered, which did not send the times.
  std::vector<std::int64_t> when_us;
};

/// curve(s, run, name, took) as columns, with each point's time: from the
/// records a scan reads anyway; a curve read from fact blobs (`fetch`) reads
/// each point's record as well.
[[nodiscard]] curve_columns curve_series(const store& s, std::string_view run,
                                         std::string_view name = "loss",
                                         curve_cost* took = nullptr);

/// Every fact forward `n` of `run` was told, in order. One fetch.
[[nodiscard]] std::vector<fact> facts(const store& s, std::string_view run, std::uint64_t n);

/// One node's time, added up over the forwards read.
struct node_row {
  std::string node;
  std::uint64_t ran = 0;
  std::uint64_t recalled = 0;
  std::uint64_t failed = 0;
  std::int64_t took_us = 0;          ///< time it spent running, added (ran and failed)
  std::vector<std::string> hosts;    ///< hosts it ran on, in order first seen
  std::vector<std::string> devices;  ///< devices it ran on, in order first seen
  double mean_us = 0;                ///< took_us per call (ran or failed)
};

/// Per node, in order of first appearance: everything of `run`, or only its
/// last `last` forwards. A fetch per forward read.
[[nodiscard]] std::vector<node_row> nodes(const store& s, std::string_view run,
                                          std::optional<std::size_t> last = std::nullopt);

namespace detail {

/// The summary key a person's NAME means, as curve() reads it: a fact
/// ("loss") means its "value" field ("loss.value"); "acc.top1" is itself.
[[nodiscard]] SOMA_API_LOCAL std::string summary_key(std::string_view name);

/// Adds forward `r` to its run's row, as runs() does (the first forward
/// counted sets `first` and `last`): what a reader that tallies runs itself
/// (soma/store/runs_tally.hpp) counts with.
SOMA_API_LOCAL void count_forward(run_row& row, const record& r);

/// Adds up nodes' time forward by forward, as nodes() does: what a reader of
/// some of a run's forwards (soma/health/) counts with.
class node_tally {
public:
  /// Counts one forward's facts.
  void add(const std::vector<fact>& told);

  /// Adds rows another tally summed (sums()), as if it had counted them.
  SOMA_API_LOCAL void merge(const std::vector<node_row>& sums);

  /// The rows so far, in order of first appearance, mean_us computed.
  [[nodiscard]] std::vector<node_row> rows() const;

  /// The rows so far, mean_us not computed: what merge() takes.
  [[nodiscard]] const std::vector<node_row>& sums() const noexcept { return rows_; }

private:
  std::vector<node_row> rows_;
  std::map<std::string, std::size_t, std::less<>> index_;
};

} // namespace detail

} // namespace soma

SOMA_API_END
