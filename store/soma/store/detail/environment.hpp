#pragma once

/// @file
/// The LMDB environment behind soma::store, and transactions on it. Every
/// LMDB return code is turned into a store_error here and nowhere else.

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <string_view>

#include <lmdb.h>

#include "soma/store/detail/guard.hpp"
#include "soma/store/store.hpp"

namespace soma::detail {

/// The named databases of a store.
enum class db { records, facts, meta, cache, cache_age, readings, trials };

/// How many named databases a store has.
inline constexpr std::size_t db_count = 7;

/// How many of them every store has had since format 1: a store an older
/// soma wrote lacks those after (trials), which read as empty.
inline constexpr std::size_t first_dbs = 6;

/// An open LMDB environment. One per directory per process.
class environment {
public:
  environment(std::string path, const store_options& options);
  ~environment();

  environment(const environment&) = delete;
  environment& operator=(const environment&) = delete;

  [[nodiscard]] const std::string& path() const noexcept { return path_; }
  [[nodiscard]] bool read_only() const noexcept { return read_only_; }

  /// Whether it was opened without lock.mdb (read-only, by a user who may
  /// not write the lock file: LMDB's MDB_NOLOCK). Such a reader does not
  /// hold back a writer in another process, which may reuse the pages it
  /// reads: what it reads is checked as always, and a value changed under
  /// it reads as damaged (read again).
  [[nodiscard]] bool unlocked() const noexcept { return unlocked_; }

  /// Runs `f` in a read transaction. `f` gets the transaction and a way to
  /// find a database's handle; a database that does not exist yet gives 0
  /// and must be read as empty. Views into LMDB memory live until `f`
  /// returns. Throws store_error.
  void
  read(const std::function<void(MDB_txn*, const std::function<MDB_dbi(db)>&)>& f) const;

  /// How a write is committed: durable unless the handle is `expendable`
  /// (store_options), or `expendable` is asked for a handle opened with
  /// `expendable_readings`.
  enum class commit { durable, expendable };

  /// Runs `f` in a write transaction and commits. When the map is full the
  /// transaction is aborted, the map doubled, and `f` run again: `f` must be
  /// safe to replay. Throws store_error (and for a read-only store).
  void
  write(const std::function<void(MDB_txn*, const std::function<MDB_dbi(db)>&)>& f,
        commit how = commit::durable);

  /// Writes a compacted copy of the environment into the empty directory
  /// `dir` (mdb_env_copy2): one consistent moment, as a read transaction
  /// sees it. Throws store_error.
  void copy_to(const std::string& dir) const;

  /// The id of the last committed transaction a reader can see (that of a
  /// read transaction begun now): it moves with every commit, by any
  /// process, once that commit is visible. Throws store_error.
  [[nodiscard]] std::uint64_t last_txn() const;

  /// Forces every committed transaction to disk (mdb_env_sync), including
  /// those an `expendable` handle committed without syncing its meta page.
  /// Safe from any thread, beside a write in progress. Throws store_error.
  void sync() const;

  /// Throws store_error for LMDB code `rc` while doing `what`.
  [[noreturn]] void fail(int rc, std::string_view what) const;

  /// Throws store_error: the store's file is damaged, as `what` says.
  [[noreturn]] void damaged(std::string_view what) const;

  /// Whether every page `bytes` spans can be read (guard.hpp); false when a
  /// damaged file put them past its end.
  [[nodiscard]] bool readable(std::string_view bytes) const noexcept;

  /// mdb_put inside write(): throws map_full (write() then grows the map and
  /// replays) or store_error. With MDB_APPEND (a key past every key of the
  /// database: LMDB then fills pages instead of splitting them) or
  /// MDB_NOOVERWRITE, false when that does not hold, and nothing written.
  bool put(MDB_txn* txn, MDB_dbi dbi, std::string_view key, std::string_view value,
           unsigned flags = 0) const;

  /// mdb_get: the value, valid until the transaction ends, or false.
  bool get(MDB_txn* txn, MDB_dbi dbi, std::string_view key,
           std::string_view& value) const;

  /// mdb_del of a key; absent keys are fine.
  void del(MDB_txn* txn, MDB_dbi dbi, std::string_view key) const;

private:
  // The handle of `which` for `txn`: a shared one, or one this transaction
  // opens, which stays in `local` (private to it) until publish() after it
  // committed. 0 when the database does not exist in txn's snapshot.
  MDB_dbi handle(MDB_txn* txn, db which, bool create, MDB_dbi* local) const;
  void publish(const MDB_dbi* local) const;
  // Begins a transaction under `guard` (shared); adopts a map another
  // process grew, which needs this process's transactions all closed.
  MDB_txn* begin(std::shared_lock<std::shared_mutex>& guard, unsigned flags) const;
  // Opens every database that exists (creating them all when writable), so
  // that transactions seldom open one: LMDB lets only one transaction of a
  // process open databases at a time.
  void open_databases();

  // First made, last gone: soma's fault handler is in place while the
  // process has a store open (guard.hpp).
  fault_guard faults_;
  std::string path_;
  bool read_only_;
  bool unlocked_ = false;
  // Opened with MDB_NOMETASYNC for expendable readings only: a durable
  // write then syncs the meta page itself after its commit.
  bool sync_after_commit_ = false;
  MDB_env* env_ = nullptr;
  // Transactions share it; growing the map takes it alone, since LMDB allows
  // mdb_env_set_mapsize only while no transaction of this process is open.
  mutable std::shared_mutex resize_;
  mutable std::mutex dbis_mtx_;
  mutable MDB_dbi dbis_[db_count] = {};
  // Held by a read that may open a database (only while some database of a
  // read-only store is missing): one transaction opens databases at a time.
  mutable std::mutex opening_;
  mutable std::atomic<bool> all_open_{false};
};

/// Thrown inside write() when the map is full; write() grows it and replays.
struct map_full {};

/// A view of LMDB bytes.
inline std::string_view view(const MDB_val& v) noexcept {
  return {static_cast<const char*>(v.mv_data), v.mv_size};
}

/// An MDB_val over `s` (LMDB does not write through it).
inline MDB_val val(std::string_view s) noexcept {
  return MDB_val{s.size(), const_cast<char*>(s.data())};
}

/// Whether LMDB code `rc` says a record or database is absent.
inline bool absent(int rc) noexcept {
  return rc == MDB_NOTFOUND;
}

} // namespace soma::detail
