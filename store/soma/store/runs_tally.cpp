#include "soma/store/runs_tally.hpp"

#include "soma/store/detail/cursor.hpp"
#include "soma/store/detail/environment.hpp"
#include "soma/store/detail/numbering.hpp"
#include "soma/store/keys.hpp"
#include "soma/store/record.hpp"

namespace soma {

namespace {

using detail::cursor;
using detail::db;

// Counts the records of `run` from forward `from` on, to the run's end, into
// `row`. Numbers missing on the way are left to check_count, as runs()
// leaves them (a run with no count in its metadata, of format 1, has none to
// miss).
void count_from(const detail::environment& env, cursor& c, std::string_view run,
                std::uint64_t from, run_row& row) {
  auto prefix = detail::run_prefix(run);
  for (bool ok = c.move(MDB_SET_RANGE, detail::record_key(run, from));
       ok && c.key().starts_with(prefix); ok = c.move(MDB_NEXT)) {
    std::string_view r;
    std::uint64_t n = 0;
    if (!detail::parse_record_key(c.key(), r, n) || r != run)
      env.damaged("a record's key (" + detail::printable_key(c.key())
                  + ") is no run's entry (run/<id>/<n>)");
    detail::count_forward(row, detail::decode_record(c.key(), c.value(),
                                                     {"the record", run, n, env.path()}));
  }
}

} // namespace

runs_tally::runs_tally(store s) : store_(std::move(s)) {}

std::vector<run_row> runs_tally::rows() {
  std::lock_guard one_look_at_a_time{mutex_};
  auto held = store_.reading();
  auto& env = *held;
  // Still where it was: the same environment (a served store's reading is a
  // new copy whenever the server committed, and copies all say
  // transaction 1) at the same transaction. Never looked: no environment.
  bool same_env = !read_.owner_before(held) && !held.owner_before(read_) && !read_.expired();
  if (!same_env || env.last_txn() != txn_) {
    std::vector<std::string> order;
    std::map<std::string, kept, std::less<>> now;
    std::uint64_t at = 0;
    env.read([&](MDB_txn* txn, const std::function<MDB_dbi(db)>& dbi) {
      at = mdb_txn_id(txn);
      auto records = dbi(db::records);
      if (records == 0)
        return;
      cursor c{env, txn, records};
      for (bool ok = c.move(MDB_FIRST); ok;) {
        std::string_view key_run;
        std::uint64_t first = 0;
        // Only records are kept here: a key that is none is one damage changed.
        if (!detail::parse_record_key(c.key(), key_run, first))
          env.damaged("a record's key (" + detail::printable_key(c.key())
                      + ") is no run's entry (run/<id>/<n>)");
        std::string run{key_run};
        auto past = detail::past_run(run);
        // The run's last record: the one before the next run's first.
        bool beyond = c.move(MDB_SET_RANGE, past);
        if (!(beyond ? c.move(MDB_PREV) : c.move(MDB_LAST)))
          env.damaged("run '" + run + "' has a first record and no last one");
        std::string_view last_run;
        std::uint64_t last_n = 0;
        if (!detail::parse_record_key(c.key(), last_run, last_n) || last_run != run)
          env.damaged("run '" + run + "' has a first record and no last one");
        kept k;
        k.next = last_n + 1;
        k.last = std::string{c.value()};
        auto before = runs_.find(run);
        bool same = before != runs_.end() && before->second.next == k.next
                    && before->second.last == k.last;
        // Grown: what was counted is still there as it was (its last record
        // reads the same), so only the records after it are new.
        bool grown = false;
        if (!same && before != runs_.end() && before->second.next > 0
            && before->second.next < k.next
            && c.move(MDB_SET, detail::record_key(run, before->second.next - 1)))
          grown = c.value() == before->second.last;
        if (same) {
          k.row = before->second.row;
        } else if (grown) {
          k.row = before->second.row;
          count_from(env, c, run, before->second.next, k.row);
        } else {
          k.row = run_row{run, 0, 0, 0, 0, 0};
          count_from(env, c, run, first, k.row);
        }
        // As runs() checks: forwards 0 .. last all there, as many as the
        // run's metadata says were written.
        detail::check_count(env, txn, dbi(db::meta), run, "records", k.row.forwards, k.next);
        order.push_back(run);
        now.emplace(std::move(run), std::move(k));
        ok = c.move(MDB_SET_RANGE, past);
      }
    });
    order_ = std::move(order);
    runs_ = std::move(now);
    read_ = held;
    txn_ = at;
  }
  std::vector<run_row> out;
  out.reserve(order_.size());
  for (auto& run : order_)
    out.push_back(runs_.find(run)->second.row);
  return out;
}

} // namespace soma
