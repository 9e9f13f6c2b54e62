// (c) The peer a user might pick: SQLite in WAL mode, with the durability of
// LMDB's default (synchronous=FULL: the log is synced at every commit),
// inserting the same rows: a records table (the record's fields, the loss as
// a number) and a facts table (the same fact blob), keyed like the store by
// (run, forward), 1000 forwards per transaction, prepared statements.

#include <filesystem>
#include <stdexcept>

#include <sqlite3.h>

#include "bench.hpp"

namespace bench {

namespace {

constexpr std::size_t batch = 1000;

// A connection, closed when it goes.
class database {
public:
  explicit database(const std::string& path) {
    if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr)
        != SQLITE_OK)
      fail("opening " + path);
  }
  ~database() { sqlite3_close_v2(db_); }
  database(const database&) = delete;
  database& operator=(const database&) = delete;

  void exec(const char* sql) {
    if (sqlite3_exec(db_, sql, nullptr, nullptr, nullptr) != SQLITE_OK)
      fail(sql);
  }

  [[noreturn]] void fail(const std::string& what) const {
    throw std::runtime_error("SQLite: " + what + ": " + sqlite3_errmsg(db_));
  }

  sqlite3* get() const noexcept { return db_; }

private:
  sqlite3* db_ = nullptr;
};

// A prepared statement, finalized when it goes.
class statement {
public:
  statement(database& db, const char* sql) : db_(db) {
    if (sqlite3_prepare_v3(db.get(), sql, -1, SQLITE_PREPARE_PERSISTENT, &st_, nullptr)
        != SQLITE_OK)
      db.fail(std::string{"preparing "} + sql);
  }
  ~statement() { sqlite3_finalize(st_); }
  statement(const statement&) = delete;
  statement& operator=(const statement&) = delete;

  sqlite3_stmt* get() const noexcept { return st_; }

  // Runs it once, then makes it ready to be bound again.
  void step() {
    if (sqlite3_step(st_) != SQLITE_DONE)
      db_.fail("inserting");
    sqlite3_reset(st_);
  }

private:
  database& db_;
  sqlite3_stmt* st_ = nullptr;
};

} // namespace

writer_row sqlite_peer(const workload& w, const record_options& opt) {
  writer_row r{"c  SQLite WAL, synchronous=FULL, 1000 per txn"};
  std::size_t k = 0;
  measure(r, opt.reps, w.size(), [&](std::size_t n) {
    auto dir = scratch(opt, "sqlite", k++);
    std::filesystem::create_directories(dir);
    auto took = clock::duration{};
    {
      database db{dir + "/runs.db"};
      db.exec("PRAGMA journal_mode=WAL");
      db.exec("PRAGMA synchronous=FULL");
      // WITHOUT ROWID: one B-tree per table keyed by (run, forward), as the
      // store keys its two databases.
      db.exec("CREATE TABLE records(run TEXT NOT NULL, forward INTEGER NOT NULL, "
              "state TEXT NOT NULL, nodes INTEGER NOT NULL, took_us INTEGER NOT NULL, "
              "\"when\" INTEGER NOT NULL, loss_value REAL, PRIMARY KEY(run, forward)) "
              "WITHOUT ROWID");
      db.exec("CREATE TABLE facts(run TEXT NOT NULL, forward INTEGER NOT NULL, "
              "blob BLOB NOT NULL, PRIMARY KEY(run, forward)) WITHOUT ROWID");
      statement insert_record{db, "INSERT INTO records VALUES (?, ?, ?, ?, ?, ?, ?)"};
      statement insert_facts{db, "INSERT INTO facts VALUES (?, ?, ?)"};
      statement begin{db, "BEGIN"};
      statement commit{db, "COMMIT"};
      auto* rec = insert_record.get();
      auto* fx = insert_facts.get();
      usage_meter usage;
      auto began = clock::now();
      for (std::size_t first = 0; first < n; first += batch) {
        begin.step();
        for (std::size_t i = first; i < n && i < first + batch; ++i) {
          auto& x = w.records[i];
          auto state = soma::to_string(x.state);
          sqlite3_bind_text(rec, 1, run_id.data(), static_cast<int>(run_id.size()), SQLITE_STATIC);
          sqlite3_bind_int64(rec, 2, static_cast<sqlite3_int64>(x.forward));
          sqlite3_bind_text(rec, 3, state.data(), static_cast<int>(state.size()), SQLITE_STATIC);
          sqlite3_bind_int64(rec, 4, x.nodes);
          sqlite3_bind_int64(rec, 5, x.took_us);
          sqlite3_bind_int64(rec, 6, x.when_s());
          sqlite3_bind_double(rec, 7, w.loss[i]);
          insert_record.step();
          auto& blob = w.blob_bytes[i];
          sqlite3_bind_text(fx, 1, run_id.data(), static_cast<int>(run_id.size()), SQLITE_STATIC);
          sqlite3_bind_int64(fx, 2, static_cast<sqlite3_int64>(x.forward));
          sqlite3_bind_blob(fx, 3, blob.data(), static_cast<int>(blob.size()), SQLITE_STATIC);
          insert_facts.step();
        }
        commit.step();
      }
      took = clock::now() - began;
      usage.add(r, took, n);
      statement count{db, "SELECT (SELECT count(*) FROM records), (SELECT count(*) FROM facts)"};
      if (sqlite3_step(count.get()) != SQLITE_ROW)
        db.fail("counting rows");
      auto records = sqlite3_column_int64(count.get(), 0);
      auto facts = sqlite3_column_int64(count.get(), 1);
      if (static_cast<std::size_t>(records) != n || static_cast<std::size_t>(facts) != n)
        r.problems.push_back("inserted " + std::to_string(records) + " records and "
                             + std::to_string(facts) + " blobs, not " + std::to_string(n));
    }
    discard(dir);
    return took;
  });
  usage_meter::drop_warm_up(r);
  return r;
}

} // namespace bench
