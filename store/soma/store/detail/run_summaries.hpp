#pragma once

/// @file
/// Runs summed up from what their writer keeps beside their records
/// (run_meta::totals, docs/formats.md "RunMeta"): listing runs costs the
/// number of runs, not the number of forwards. A run an older soma wrote
/// last has no totals and is counted from its records, as runs() counts.
///
/// Every function here reads inside a transaction its caller holds (read or
/// write), from the thread that holds it; views it takes of LMDB memory do
/// not outlive the call.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include <lmdb.h>

#include "soma/store/detail/record.hpp"
#include "soma/store/readers.hpp"

namespace soma::detail {

class environment;

/// Adds the record `r` to `t` exactly as count_forward() adds it to a row
/// (the first forward counted sets `first` and `last`).
void add_forward(run_totals& t, const record& r);

/// The row runs() gives `run` whose totals are `t`.
[[nodiscard]] run_row row_of(std::string_view run, const run_totals& t);

/// What one scan of a run's records found.
struct run_count {
  run_totals totals;               ///< every record, added
  std::uint64_t seen = 0;          ///< records found
  std::uint64_t last_plus_one = 0; ///< the number after the last found; 0 with none
};

/// Counts every record of `run` in `records` (a database handle of `txn`; 0
/// reads as empty), in forward order. Cost: one scan of the run. Throws
/// store_error (damaged) naming the record, the run and the store for a
/// record that does not decode.
[[nodiscard]] run_count count_run(const environment& env, MDB_txn* txn, MDB_dbi records,
                                  std::string_view run);

/// The runs that have records, in the order runs() lists them (the byte
/// order of their keys `run/<id>/`: the byte order of the ids, except that
/// an id that extends another with a character below '/' comes before it),
/// only those listed after the run `after` (all when none; `after` need not
/// exist), at most `count` of them, each summed up as runs() sums it.
///
/// `records` and `meta` are the handles of those databases in `txn` (0: the
/// database does not exist yet, read as empty).
///
/// Cost: for each run listed, a seek to its first and to its last record
/// and one read of its metadata, whatever its length; a run whose metadata
/// holds no totals (an older soma wrote it last, or there is no metadata, as
/// in format 1) costs one scan of that run's records instead. A run whose
/// metadata exists but has no record (an overwrite that wrote nothing yet)
/// is not listed, as runs() does not list it.
///
/// Throws store_error whose trouble is `damaged`, naming the store and the
/// run: a key in `records` that is no run's entry; metadata that does not
/// decode; totals that disagree with the run's `next` (its count of
/// forwards) or a last record that does; for a run counted from its records,
/// what runs() throws (a record that does not decode, records missing).
/// Throws store_error (`failed`) for an LMDB error.
/// `trials`: the trials database's handle, for each row's `trial` (0: none
/// looked for); a run named as trials' runs are costs a seek or two more.
[[nodiscard]] std::vector<run_row> run_rows_at(const environment& env, MDB_txn* txn,
                                               MDB_dbi records, MDB_dbi meta,
                                               std::optional<std::string_view> after,
                                               std::size_t count, MDB_dbi trials = 0);

/// One run's row, as run_rows_at() gives it; nullopt when `run` has no
/// record (no such run). `run` must be a run id (check_run_id() says
/// so; the caller checks). Cost and errors: those of run_rows_at() for one
/// run.
[[nodiscard]] std::optional<run_row> run_row_at(const environment& env,
                                                MDB_txn* txn, MDB_dbi records,
                                                MDB_dbi meta, std::string_view run,
                                                MDB_dbi trials = 0);

} // namespace soma::detail
