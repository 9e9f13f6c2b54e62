#pragma once

// What every implementation of the record benchmark shares: the forwards they
// all write (values and the exact bytes a recorder writes for them), the
// options, scratch directories, and the readers' and memory rows. How a
// writer row is measured (bench::row, bench::measure) comes from the forward
// benchmark.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "../forward/bench.hpp"
#include "soma/store/detail/record.hpp"

namespace caf {
class actor_system;
} // namespace caf

namespace bench {

// -- options ------------------------------------------------------------------

struct record_options {
  std::size_t forwards = 100000; ///< per repetition of every writer row
  unsigned reps = 3;             ///< repetitions of every writer row (median shown)
  unsigned reader_reps = 5;      ///< calls of every reader (median shown)
  std::string dir;               ///< scratch directory; a fresh store per writer run in it

  /// Forwards per repetition of the diagnostic rows (b1-b3): enough for a
  /// per-forward cost, few enough to keep the default run short.
  [[nodiscard]] std::size_t diagnostic_forwards() const {
    return std::min<std::size_t>(forwards, 20000);
  }
};

/// `<opt.dir>/<what>-<k>`, emptied: where one run's store goes.
std::string scratch(const record_options& opt, const std::string& what, std::size_t k);

/// Removes a run's directory (a store, or SQLite's file with its log).
void discard(const std::string& path);

// -- the writer rows ------------------------------------------------------------

/// A writer row: bench::row, with the context switches it caused.
struct writer_row : row {
  using row::row;
  /// Voluntary + involuntary context switches of the whole process (all
  /// threads) per forward, one per repetition.
  std::vector<double> switches;
};

/// Reads the process's CPU time and context switches (getrusage, all
/// threads) when made; add() puts what happened since into a row.
class usage_meter {
public:
  usage_meter();

  /// Appends CPU time per wall second (in % of a core) over `wall`, and
  /// context switches per forward over `n` forwards, to `r`.
  void add(writer_row& r, clock::duration wall, std::size_t n) const;

  /// Drops the warm-up's readings (the first) after bench::measure.
  static void drop_warm_up(writer_row& r);

private:
  double cpu_ = 0;
  long switches_ = 0;
};

// -- the forwards every writer writes -----------------------------------------

/// The run every writer writes.
inline const std::string run_id = "bench";

/// The seed graph's input, and what each forward of it answers.
inline const std::string input_text = "the quick brown fox jumps";
inline constexpr double expected_output = 10.5 / 5.0; // lengths 3 5 5 3 5, halved, mean

/// N forwards of the seed graph with one loss fact each, built before any row
/// is timed: the values every writer writes and, for the floor, the exact
/// bytes a recorder writes for them (soma::detail::encode_record /
/// encode_facts of the facts a real forward has).
struct workload {
  std::vector<soma::record> records; ///< forward n's record, summary {"loss.value", ...}
  std::vector<double> loss;          ///< the loss told after forward n
  std::vector<std::string> keys;     ///< run/<id>/<8-byte BE n>, both databases
  std::vector<std::string> record_bytes;
  std::vector<std::string> blob_bytes;
  /// What encoding a record and its blob took per forward, as they were built
  /// (a cost the recorder pays and the floor does not).
  double encode_us = 0;
  /// The same encoding with each output freed before the next (memory
  /// reused, as a recorder's batches are): encode_us less the fresh pages
  /// that keeping every output here took.
  double encode_reused_us = 0;
  /// The same as the record log encodes: into one buffer it keeps, timed a
  /// thousand forwards at a time (no clock read per forward). Issue 27's
  /// target is judged on this.
  double encode_kept_us = 0;
  /// Of which the checksums (XXH3 over key and bytes, both values).
  double checksum_us = 0;

  [[nodiscard]] std::size_t size() const noexcept { return records.size(); }
  /// Bytes written per forward, keys excluded: record + blob, averaged.
  [[nodiscard]] double record_bytes_mean() const;
  [[nodiscard]] double blob_bytes_mean() const;
};

/// The loss a training loop would tell after forward n: decaying, a little noisy.
double loss_at(std::size_t n);

workload make_workload(std::size_t n);

// -- the writer rows, one file each -------------------------------------------

/// (a) the floor: the workload's bytes put into two named LMDB databases, 1000
/// forwards per durable write transaction.
writer_row lmdb_floor(const workload& w, const record_options& opt);

#ifdef SOMA_HAVE_SQLITE3
/// (c) the peer: SQLite in WAL mode, synchronous=FULL, the same rows in
/// transactions of 1000, prepared statements.
writer_row sqlite_peer(const workload& w, const record_options& opt);
#endif

/// How one recorded run ended, beside its row.
struct recorded_runs {
  writer_row b0{"b0 soma forwards, no recorder"};
  writer_row b{"b  soma forwards + recorder + loss fact"};
  std::vector<double> flush_ms; ///< per repetition: how long the final flush() waited
  std::string kept;             ///< the last repetition's store, for the readers
};

/// (b0) and (b): the seed graph without and with a recorder. Keeps the last
/// (b) repetition's store (a run of opt.forwards forwards) for the readers.
recorded_runs soma_rows(caf::actor_system& sys, const workload& w, const record_options& opt);

/// What the diagnostic rows watch with instead of a recorder.
enum class sink {
  detached, ///< b1: a detached actor (a thread of its own, as the recorder) dropping facts
  pooled,   ///< b2: an event-based actor on CAF's workers dropping facts
  callable, ///< b3: a callable keeping facts in a buffer, cleared every 1000 forwards
};

/// Not asked for by the scenario: (b) with the recorder replaced by `kind`,
/// opt.diagnostic_forwards() per repetition: what telling the recorder costs
/// before it writes anything, and what taking facts without a thread
/// hand-off would cost.
writer_row soma_sink(caf::actor_system& sys, const workload& w, const record_options& opt,
                     sink kind);

// -- reading back -------------------------------------------------------------

/// One reader called on the recorded run, timed opt.reader_reps times.
struct reader_row {
  std::string name;
  std::vector<double> ms;
  std::optional<double> target_ms; ///< the issue's target, when it has one
  std::string returned;            ///< what it gave back, in words
  std::vector<std::string> problems;
};

/// (d) the readers on the run (b) wrote in `store_dir`.
std::vector<reader_row> readers(const std::string& store_dir, const workload& w,
                                const record_options& opt);

/// (f) 10 runs of opt.forwards forwards each, written by the record log in
/// batches of 1000 into a fresh store, then listed: runs() as a reader
/// calls it beside detail::run_rows_at alone (the totals the writer kept,
/// which runs() reads since issue 25).
std::vector<reader_row> run_rows(const record_options& opt);

// -- memory -------------------------------------------------------------------

/// The process's anonymous resident memory (heap, stacks; not the LMDB map,
/// which is file-backed), sampled around and during one recorded run.
struct memory_run {
  std::size_t forwards = 0;
  double before_mib = 0; ///< right before the run
  double peak_mib = 0;   ///< most seen while it ran (sampled every millisecond)
  double after_mib = 0;  ///< after flush, the recorder and store closed, malloc_trim
  double seconds = 0;    ///< the run's wall time, forwards to flush done
  std::vector<std::string> problems;
};

/// (e) recorded runs of opt.forwards / 10 and then opt.forwards forwards
/// (after an unsampled warm-up), each on a fresh store.
std::vector<memory_run> recorder_memory(caf::actor_system& sys, const workload& w,
                                        const record_options& opt);

/// Anonymous resident memory of this process in MiB (/proc/self/statm:
/// resident minus shared).
double anon_rss_mib();


} // namespace bench
