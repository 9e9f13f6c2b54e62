#pragma once

/// @file
/// A run's log in a store: how forwards are numbered, written and kept
/// beside the run's metadata. The recorder's writer hands it batches; the
/// rules (numbering after what the run holds, overwrite, a batch sent again
/// written once, the run's `next`) live here, with every LMDB call.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "soma/export.hpp"
#include "soma/fact.hpp"
#include "soma/store/detail/environment.hpp"
#include "soma/store/detail/record.hpp"
#include "soma/store/store.hpp"

namespace soma::detail {

/// One forward to write.
struct log_entry {
  std::uint64_t id = 0;                ///< the engine's forward id; 0: none
  std::optional<std::uint64_t> number; ///< its n, when an earlier write gave it one
  record rec;                          ///< what the record says (its `forward` is set here)
  const std::vector<fact>* facts = nullptr;
};

/// How a log writes.
struct log_options {
  std::string run;
  std::vector<std::string> summarising;
  /// Clear the run's forwards with the first write, and number from 0.
  bool overwrite = false;
  /// Nonzero: the writer (a served store's client recorder) whose batches
  /// may come again; see record_log::write.
  std::uint64_t once_for = 0;
  /// What the run was and words to find it by: kept in its metadata. None
  /// given: those the run has, or else those of the trial that gave the
  /// run (its params, and the tag `study:<name>`).
  values params;
  std::vector<std::string> tags;
  /// The process writing, kept as the run's writer (soma/store/run_status.hpp).
  run_writer writer;
};

/// What a write staged in a transaction gave: the log takes it on
/// (record_log::adopt) once that transaction committed, never before.
struct staged_log {
  bool cleared = false;
  std::uint64_t next = 0;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> numbered; ///< (id, n)
  bool execution_noted = false;             ///< it added this log's execution to the run's
  std::optional<std::string> words_written; ///< the run's words, when it wrote them (sealed)
  std::size_t words_kept = 0;               ///< how many words they hold
};

/// One writer's log of one run. Not thread-safe: one writer owns it. What
/// soma's tests call is exported; the rest is the store's own (hidden
/// wherever it is compiled, so that no program that includes this sees it
/// as more visible than the environment it holds).
SOMA_API_HIDDEN_BEGIN
class record_log {
public:
  record_log(std::shared_ptr<environment> env, log_options options);

  /// The environment it writes.
  [[nodiscard]] environment& env() const noexcept { return *env_; }

  /// Writes `entries` in one transaction and returns (id, n) for each.
  /// New forwards number after whatever the run holds (another writer of
  /// the run may have written since this one began). With `once_for`, the
  /// numbers given to the forwards of the batch whose ids are `batch` are
  /// kept under `batch/<once_for>` in the meta database, so a forward sent
  /// again keeps its number and is written over, never twice. Throws
  /// store_error; then nothing of it was written.
  /// The entries' records get their numbers (`rec.forward`) in place.
  std::vector<std::pair<std::uint64_t, std::uint64_t>>
  write(std::span<log_entry> entries, const std::vector<std::uint64_t>& batch);

  /// write()'s work, in `txn`, which the caller commits (a group of writes in
  /// one transaction: soma/store/detail/write_group.hpp). It may be staged
  /// again in a new transaction (the map grew); the log changes only when
  /// the result is adopted after the commit. Throws store_error.
  [[nodiscard]] staged_log stage(MDB_txn* txn,
                                 const std::function<MDB_dbi(db)>& dbi,
                                 std::span<log_entry> entries,
                                 const std::vector<std::uint64_t>& batch);
  void adopt(staged_log& done) noexcept;

  /// Marks the run ended (run_meta::ended_us, this machine's clock now), in
  /// one transaction. Throws store_error.
  void end();

  /// end()'s work in `txn`, `now_us` its time. Throws store_error.
  void stage_end(MDB_txn* txn, const std::function<MDB_dbi(db)>& dbi, std::int64_t now_us);

  /// Marks the run left without closing by the writer's client
  /// (run_meta::dropped_us, this machine's clock now), unless it ended.
  /// Throws store_error.
  void dropped();

private:
  // Adds this log's execution to `m`'s, whose run had `had` forwards before
  // this write, which gives `first` first; true.
  bool note_execution(run_meta& m, std::uint64_t had, std::uint64_t first) const;

  std::shared_ptr<environment> env_;
  log_options options_;
  std::uint64_t recorder_; // the execution's id: once_for, or made up
  bool execution_noted_ = false;
  bool cleared_ = false;
  std::uint64_t next_ = 0;
  std::string buffer_; // encodings, reused
  // The run's words (format 4): as this log last read or wrote them
  // (`words_seen_`, sealed; empty: none), holding `words_kept_` words, and
  // any it added since in a write that did not commit.
  run_words words_;
  std::string words_seen_;
  std::size_t words_kept_ = 0;
};
SOMA_API_HIDDEN_END

/// The record that `facts` make, numbered n: state, took_us and when_us as
/// given, nodes counted, the summarised facts' fields flattened.
[[nodiscard]] record make_record(const std::vector<fact>& facts, std::uint64_t n,
                                 outcome state, std::int64_t took_us,
                                 std::int64_t when_us,
                                 const std::vector<std::string>& summarising);

} // namespace soma::detail
