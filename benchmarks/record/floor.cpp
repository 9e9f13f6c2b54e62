// (a) The floor: raw LMDB. The bytes a recorder writes for each forward (a
// record and a fact blob, encoded before the clock starts) put into two
// named databases under the recorder's keys, 1000 forwards per write
// transaction, each commit durable (LMDB's default sync: fdatasync).

#include <filesystem>
#include <stdexcept>

#include <lmdb.h>

#include "bench.hpp"

namespace bench {

namespace {

constexpr std::size_t batch = 1000; // the recorder's default batch

void check(int rc, const char* what) {
  if (rc != 0)
    throw std::runtime_error(std::string{"raw LMDB: "} + what + ": " + mdb_strerror(rc));
}

MDB_val val(const std::string& s) {
  return MDB_val{s.size(), const_cast<char*>(s.data())};
}

} // namespace

writer_row lmdb_floor(const workload& w, const record_options& opt) {
  writer_row r{"a  raw LMDB puts, 1000 per txn (floor)"};
  std::size_t k = 0;
  measure(r, opt.reps, w.size(), [&](std::size_t n) {
    auto dir = scratch(opt, "floor", k++);
    std::filesystem::create_directories(dir);
    // As soma::store opens its environment (the same map size and flags).
    MDB_env* env = nullptr;
    check(mdb_env_create(&env), "creating the environment");
    mdb_env_set_maxdbs(env, 8);
    mdb_env_set_mapsize(env, std::size_t{1} << 30);
    check(mdb_env_open(env, dir.c_str(), MDB_NOTLS, 0664), "opening the environment");
    MDB_dbi records = 0, facts = 0;
    {
      MDB_txn* txn = nullptr;
      check(mdb_txn_begin(env, nullptr, 0, &txn), "beginning a write");
      check(mdb_dbi_open(txn, "records", MDB_CREATE, &records), "opening 'records'");
      check(mdb_dbi_open(txn, "facts", MDB_CREATE, &facts), "opening 'facts'");
      check(mdb_txn_commit(txn), "committing");
    }
    usage_meter usage;
    auto began = clock::now();
    for (std::size_t first = 0; first < n; first += batch) {
      MDB_txn* txn = nullptr;
      check(mdb_txn_begin(env, nullptr, 0, &txn), "beginning a write");
      for (std::size_t i = first; i < n && i < first + batch; ++i) {
        auto key = val(w.keys[i]);
        auto rec = val(w.record_bytes[i]);
        auto blob = val(w.blob_bytes[i]);
        check(mdb_put(txn, records, &key, &rec, 0), "putting a record");
        check(mdb_put(txn, facts, &key, &blob, 0), "putting a blob");
      }
      check(mdb_txn_commit(txn), "committing");
    }
    auto took = clock::now() - began;
    usage.add(r, took, n);
    MDB_txn* txn = nullptr;
    check(mdb_txn_begin(env, nullptr, MDB_RDONLY, &txn), "beginning a read");
    MDB_stat rs{}, fs{};
    mdb_stat(txn, records, &rs);
    mdb_stat(txn, facts, &fs);
    mdb_txn_abort(txn);
    if (rs.ms_entries != n || fs.ms_entries != n)
      r.problems.push_back("wrote " + std::to_string(rs.ms_entries) + " records and "
                           + std::to_string(fs.ms_entries) + " blobs, not "
                           + std::to_string(n));
    mdb_env_close(env);
    discard(dir);
    return took;
  });
  usage_meter::drop_warm_up(r);
  return r;
}

} // namespace bench
