#include "soma/store/tails.hpp"

#include <algorithm>

#include "soma/store/backend.hpp"
#include "soma/store/detail/cursor.hpp"
#include "soma/store/detail/environment.hpp"
#include "soma/store/detail/local_answers.hpp"
#include "soma/store/detail/numbering.hpp"
#include "soma/store/keys.hpp"
#include "soma/store/detail/key_bytes.hpp"

namespace soma {

namespace {

using detail::cursor;
using detail::db;
using detail::environment;
using detail::run_words;

// The run and number of the record the cursor is at. Where the cursor is
// must be a record of a run: anything else in the records database is one
// damage changed.
void parse_here(const environment& env, const cursor& c, std::string_view& run,
                std::uint64_t& n) {
  if (!detail::parse_record_key(c.key(), run, n))
    env.damaged("a record's key (" + detail::printable_key(c.key())
                + ") is no run's entry (run/<id>/<n>)");
}

// The record the cursor is at, forward `n` of `run`.
record decode_here(const environment& env, const cursor& c, std::string_view run,
                   std::uint64_t n) {
  return detail::decode_record(c.key(), c.value(), {"the record", run, n, env.path()});
}

// Moves the cursor from forward `last_n` of `run`, its last, to the last
// forward whose `when` is at or before `at`; false when the run's first
// forward (`first`, number `first_n`) is after `at`.
bool back_to(const environment& env, cursor& c, const std::string& run, std::int64_t first,
             std::uint64_t first_n, std::uint64_t last_n, std::int64_t at) {
  // Forwards are written in time order, so a binary search on their numbers.
  if (decode_here(env, c, run, last_n).when_s() > at) {
    std::uint64_t lo = first_n, hi = last_n;
    if (first > at)
      return false;
    while (hi - lo > 1) {
      auto mid = lo + (hi - lo) / 2;
      auto key = detail::record_key(run, mid);
      if (!c.move(MDB_SET_RANGE, key) || c.key() != key)
        env.damaged("run '" + run + "' lost forward " + std::to_string(mid)
                    + ": it has forwards " + std::to_string(first_n) + " and "
                    + std::to_string(last_n) + ", and some between are missing");
      std::string_view view;
      std::uint64_t n = 0;
      parse_here(env, c, view, n);
      (decode_here(env, c, run, n).when_s() <= at ? lo : hi) = mid;
    }
    last_n = lo;
  }
  // (MDB_SET_RANGE, not MDB_SET: MDB_SET leaves the cursor's key the
  // caller's, here a temporary.)
  auto key = detail::record_key(run, last_n);
  if (!c.move(MDB_SET_RANGE, key) || c.key() != key)
    env.damaged("run '" + run + "' lost forward " + std::to_string(last_n));
  return true;
}

// What is left of a part of `tails`: records and stored bytes.
struct part_budget {
  std::size_t records = detail::records_per_tails_part;
  std::size_t bytes = detail::bytes_per_tails_part;
  bool spent() const noexcept { return records == 0 || bytes == 0; }
  void take(std::size_t n) noexcept { bytes -= std::min(bytes, n), records -= records > 0; }
};

// What a fact blob takes in an answer: a served store's server sends facts
// as format 3 writes them (the wire names no run's words), which takes
// more than a blob of format 4 does on disk, so that is what a part counts.
std::size_t answered_size(std::string_view blob, const std::vector<fact>& facts,
                          std::string_view key) {
  if (blob.size() < detail::seal_bytes || static_cast<std::uint8_t>(blob[2]) != detail::newest_format)
    return blob.size();
  thread_local std::string again;
  again.clear();
  detail::encode_facts_into(again, facts, key);
  return again.size();
}

// Walks back over `last` records of `run` from the one the cursor is at,
// into `tail`, oldest first, with the fact blobs of the newest `facts`. It
// stops early, once at least one record is in the part (`first_in_part`
// says whether none is yet), when `budget` is spent: true then, when older
// forwards are left to a next part.
bool walk_back(const environment& env, MDB_txn* txn, MDB_dbi blobs, const run_words& words,
               cursor& c, run_tail& tail, std::size_t last, std::size_t facts,
               part_budget& budget, bool first_in_part) {
  auto& run = tail.run;
  auto& records = tail.records;
  std::string_view view;
  bool at_record = true;
  for (std::size_t i = 0; i < last && at_record; ++i) {
    if (budget.spent() && !(first_in_part && i == 0))
      break;
    std::uint64_t n = 0;
    parse_here(env, c, view, n);
    if (view != run && i == 0)
      env.damaged("run '" + run + "' ends on a record of another run ('" + std::string{view}
                  + "'): its keys are out of order");
    if (view != run)
      break;
    if (!records.empty() && n + 1 != records.back().forward)
      env.damaged("the records of run '" + run + "' skip from forward " + std::to_string(n)
                  + " to " + std::to_string(records.back().forward)
                  + ": some are missing or were moved");
    records.push_back(decode_here(env, c, run, n));
    if (records.back().forward != n)
      env.damaged("the record at forward " + std::to_string(n) + " of run '" + run
                  + "' says it is forward " + std::to_string(records.back().forward));
    auto bytes = c.value().size();
    if (i < facts) {
      auto key = detail::record_key(run, n);
      std::string_view blob;
      if (!env.get(txn, blobs, key, blob))
        env.damaged("forward " + std::to_string(n) + " of run '" + run
                    + "' has a record but no fact blob");
      tail.facts.push_back(
        detail::decode_facts(key, blob, {"the fact blob", run, n, env.path()}, &words));
      bytes += answered_size(blob, tail.facts.back(), key);
    }
    budget.take(bytes);
    at_record = c.move(MDB_PREV);
  }
  std::reverse(records.begin(), records.end());
  std::reverse(tail.facts.begin(), tail.facts.end());
  // Cut when it stopped for the budget with older forwards of the run left.
  if (records.size() >= last || !at_record)
    return false;
  std::uint64_t n = 0;
  parse_here(env, c, view, n);
  return view == run;
}

} // namespace

namespace {

// The older forwards of `tail`, which a part cut short, asked for in parts
// of their own and put before the newer ones it holds.
void add_older(detail::answers& ask, const tail_options& o, run_tail& tail) {
  for (bool cut = true; cut && tail.records.size() < o.last;) {
    if (tail.records.empty())
      throw store_error("run '" + tail.run + "'s tail came cut short before its first record",
                        store_trouble::damaged);
    auto rest = o;
    rest.run = tail.run;
    rest.before = tail.records.front().forward;
    rest.last = o.last - tail.records.size();
    rest.facts = o.facts > tail.records.size() ? o.facts - tail.records.size() : 0;
    auto part = ask.tails(rest, std::nullopt, 1);
    if (part.tails.empty())
      return; // its older forwards are gone (the run was deleted meanwhile)
    auto& older = part.tails.front();
    if (older.run != tail.run || older.records.empty()
        || older.records.back().forward + 1 != tail.records.front().forward)
      throw store_error("the rest of run '" + tail.run + "'s tail before forward "
                          + std::to_string(tail.records.front().forward)
                          + " came back as another run's or out of order",
                        store_trouble::damaged);
    if (!older.facts.empty() && tail.facts.size() != tail.records.size())
      throw store_error("the rest of run '" + tail.run + "'s tail came with fact blobs its newer "
                          "forwards lack", store_trouble::damaged);
    older.records.insert(older.records.end(), std::make_move_iterator(tail.records.begin()),
                         std::make_move_iterator(tail.records.end()));
    older.facts.insert(older.facts.end(), std::make_move_iterator(tail.facts.begin()),
                       std::make_move_iterator(tail.facts.end()));
    tail.records = std::move(older.records);
    tail.facts = std::move(older.facts);
    cut = part.cut;
  }
}

} // namespace

std::vector<run_tail> tails(const store& s, const tail_options& o) {
  auto& ask = s.backend().ask();
  std::vector<run_tail> out;
  std::optional<std::string> after;
  do {
    auto part = ask.tails(o, after, detail::tails_per_part);
    out.insert(out.end(), std::make_move_iterator(part.tails.begin()),
               std::make_move_iterator(part.tails.end()));
    if (part.cut && !out.empty())
      add_older(ask, o, out.back());
    after = std::move(part.after);
  } while (after && !o.run);
  return out;
}

detail::tails_part detail::local_answers::tails(const tail_options& o,
                                                const std::optional<std::string>& after,
                                                std::size_t count) {
  if (o.run)
    if (auto ok = check_run_id(*o.run); !ok)
      throw store_error(describe(ok.error()), store_trouble::invalid);
  count = std::clamp<std::size_t>(count, 1, tails_per_part);
  tails_part part;
  part_budget budget;
  auto& out = part.tails;
  bool found_run = false; // o.run, even when it began after o.at
  auto& env = env_;
  env.read([&](MDB_txn* txn, const std::function<MDB_dbi(db)>& dbi) {
    auto records = dbi(db::records);
    auto blobs = dbi(db::facts);
    if (records == 0)
      return;
    cursor c{env, txn, records};
    bool ok = c.move(MDB_SET_RANGE, o.run     ? detail::run_prefix(*o.run)
                                     : after ? detail::past_run(*after)
                                             : std::string{"run/"});
    while (ok) {
      if (out.size() >= count && !o.run) {
        part.after = out.back().run; // more are left: the next part goes on from there
        break;
      }
      std::string_view view;
      std::uint64_t first_n = 0;
      parse_here(env, c, view, first_n);
      if (o.run && view != *o.run)
        break;
      std::string run{view};
      run_tail tail;
      tail.run = run;
      tail.first = decode_here(env, c, run, first_n).when_s();
      tail.ended_us = detail::meta_of(env, txn, dbi(db::meta), run).ended_us;
      auto next = detail::past_run(run);
      // Its last forward: the key before the next run's first.
      bool more = c.move(MDB_SET_RANGE, next);
      if (!(more ? c.move(MDB_PREV) : c.move(MDB_LAST)))
        env.damaged("run '" + run + "' has a first record and no last one");
      std::uint64_t last_n = 0;
      parse_here(env, c, view, last_n);
      // Only forwards below `before`: the rest of a tail cut short.
      if (o.before && (*o.before <= first_n || *o.before - 1 < last_n)) {
        if (*o.before <= first_n) {
          found_run = true;
          break; // nothing older is left (`before` is only asked with `run`)
        }
        last_n = *o.before - 1;
        auto key = detail::record_key(run, last_n);
        if (!c.move(MDB_SET_RANGE, key) || c.key() != key)
          env.damaged("run '" + run + "' lost forward " + std::to_string(last_n));
      }
      if (o.at && !back_to(env, c, run, tail.first, first_n, last_n, *o.at)) {
        found_run = true;
        ok = more && c.move(MDB_SET_RANGE, next);
        continue;
      }
      auto words = o.facts > 0 ? detail::words_of(env, txn, dbi(db::meta), run) : run_words{};
      part.cut = walk_back(env, txn, blobs, words, c, tail, o.last, o.facts, budget, out.empty());
      out.push_back(std::move(tail));
      if (o.run)
        break;
      if (part.cut || budget.spent()) {
        part.after = run; // the part is full: the next goes on after this run
        break;
      }
      ok = more && c.move(MDB_SET_RANGE, next);
    }
  });
  if (o.run && out.empty() && !found_run)
    detail::no_run_or_damage(env, *o.run);
  return part;
}

} // namespace soma
