#include "soma/store/check.hpp"

#include "soma/store/backend.hpp"
#include "soma/store/detail/local_answers.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "soma/detail/seal.hpp"
#include "soma/store/cache.hpp"
#include "soma/store/detail/cache_at.hpp"
#include "soma/store/detail/cursor.hpp"
#include "soma/store/detail/environment.hpp"
#include "soma/store/detail/numbering.hpp"
#include "soma/store/detail/readings_at.hpp"
#include "soma/store/detail/record.hpp"
#include "soma/store/detail/run_summaries.hpp"
#include "soma/store/detail/trials_at.hpp"
#include "soma/store/keys.hpp"
#include "soma/store/readings.hpp"
#include "soma/store/trials.hpp"
#include "soma/store/detail/key_bytes.hpp"

namespace soma {

namespace {

using detail::db;

// What the walk of a run's records and blobs saw.
struct run_seen {
  std::set<std::uint64_t> records, blobs;
  detail::run_totals totals;  ///< the records that decode, added
  bool undecodable = false;   ///< some record does not decode (reported as such)
};

// Thrown through the walk when its progress says stop.
struct stopped {};

// How often a walk says how far it is.
constexpr std::size_t progress_every = 4096;

class walker {
public:
  walker(const detail::environment& env, check_report& report, const check_progress& progress)
    : env_(env), report_(report), progress_(progress) {}

  void walk() {
    env_.read([&](MDB_txn* txn, const std::function<MDB_dbi(db)>& dbi) {
      txn_ = txn;
      try {
        walk_all(dbi);
      } catch (const stopped&) {
        report_.complete = false;
      }
    });
  }

private:
  void walk_all(const std::function<MDB_dbi(db)>& dbi) {
    for (auto d : {db::records, db::facts, db::meta, db::readings, db::cache, db::cache_age,
                   db::trials}) {
      MDB_stat st{};
      if (auto h = dbi(d); h != 0 && mdb_stat(txn_, h, &st) == 0)
        total_ += st.ms_entries;
    }
    meta_ = dbi(db::meta);
    each(dbi(db::records), "records", [&](auto k, auto v) { record(k, v); });
    each(dbi(db::facts), "facts", [&](auto k, auto v) { blob(k, v); });
    each(dbi(db::meta), "meta", [&](auto k, auto v) { meta(k, v); });
    each(dbi(db::readings), "readings", [&](auto k, auto v) { reading(k, v); });
    each(dbi(db::cache), "cache", [&](auto k, auto v) { cache(k, v); });
    each(dbi(db::cache_age), "cache_age", [&](auto k, auto v) { age(k, v); });
    each(dbi(db::trials), "trials", [&](auto k, auto v) {
      if (auto ok = detail::check_trials_entry(k, v); !ok)
        bad("trials", k, describe(ok.error()));
    });
    runs();
    ages();
    if (machines_ && *machines_ != latest_)
      bad("readings", "count/latest", std::to_string(*machines_) + " machines have a reading "
                      "(the store's count says), but " + std::to_string(latest_) + " were found");
    if (progress_)
      (void)progress_(report_.entries, total_);
  }

  void bad(std::string database, std::string_view key, std::string what) {
    report_.damaged.push_back(damage{std::move(database), detail::printable_key(key), std::move(what)});
  }

  // Calls f(key, value) for every entry; a walk cut short by damage is
  // itself reported, and the next database is walked.
  template <class F>
  void each(MDB_dbi dbi, const char* name, F&& f) {
    if (dbi == 0)
      return;
    std::size_t walked = 0;
    std::string last;
    try {
      detail::cursor c{env_, txn_, dbi};
      for (bool ok = c.move(MDB_FIRST); ok; ok = c.move(MDB_NEXT)) {
        ++walked;
        if (++report_.entries % progress_every == 0 && progress_ && !progress_(report_.entries, total_))
          throw stopped{};
        last.assign(c.key());
        try {
          f(c.key(), c.value());
        } catch (const store_error& e) {
          bad(name, c.key(), e.what());
        }
      }
    } catch (const store_error& e) {
      bad(name, last, std::string{"the walk stopped here: "} + e.what());
      return;
    }
    MDB_stat st{};
    if (mdb_stat(txn_, dbi, &st) == 0 && st.ms_entries != walked)
      bad(name, {}, "LMDB counts " + std::to_string(st.ms_entries) + " entries, but "
                      + std::to_string(walked) + " could be walked: part of its tree is damaged");
  }

  detail::origin at(std::string_view what, std::string_view run, std::uint64_t n) const {
    return detail::origin{what, run, n, env_.path()};
  }

  // The run and number of a record's or blob's key; false (reported) when
  // it is no such key.
  bool run_key(const char* database, std::string_view key, std::string_view& run,
               std::uint64_t& n) {
    if (detail::parse_record_key(key, run, n))
      return true;
    bad(database, key, "a key that is no run's entry (run/<id>/<n>)");
    return false;
  }

  void record(std::string_view key, std::string_view value) {
    std::string_view run;
    std::uint64_t n = 0;
    if (!run_key("records", key, run, n))
      return;
    auto& seen = seen_[std::string{run}];
    seen.records.insert(n); // damaged or not, it is there
    bool was_undecodable = seen.undecodable;
    seen.undecodable = true; // until it decodes
    auto r = detail::decode_record(key, value, at("the record", run, n));
    seen.undecodable = was_undecodable;
    detail::add_forward(seen.totals, r);
    if (r.forward != n)
      bad("records", key, "the record says it is forward " + std::to_string(r.forward));
  }

  void blob(std::string_view key, std::string_view value) {
    std::string_view run;
    std::uint64_t n = 0;
    if (!run_key("facts", key, run, n))
      return;
    seen_[std::string{run}].blobs.insert(n);
    auto* words = words_of(run);
    if (!words) { // damaged, and said so once, under meta: the blob's seal only
      std::string_view payload;
      (void) detail::open_sealed(key, value, detail::sealed_kind::facts,
                                 at("the fact blob", run, n), payload);
      return;
    }
    (void) detail::decode_facts(key, value, at("the fact blob", run, n), words);
  }

  // The words of `run` (format 4; none for a run an older soma wrote), read
  // once; null when they are damaged. Blobs come in key order, a run's
  // together, so only the run at hand's are kept.
  const detail::run_words* words_of(std::string_view run) {
    auto it = words_.find(run);
    if (it == words_.end()) {
      words_.clear();
      std::optional<detail::run_words> words;
      try {
        words = detail::words_of(env_, txn_, meta_, run);
      } catch (const store_error&) {
      }
      it = words_.emplace(std::string{run}, std::move(words)).first;
    }
    return it->second ? &*it->second : nullptr;
  }

  void meta(std::string_view key, std::string_view value) {
    if (key.starts_with("batch/")) {
      std::string_view pairs;
      detail::open_sealed(key, value, detail::sealed_kind::batch, at("a batch's numbers", {}, 0),
                          pairs);
      return;
    }
    if (key.starts_with("words/")) {
      auto run = key.substr(6);
      (void) detail::decode_run_words(key, value, at("the words of run '" + std::string{run} + "'", {}, 0));
      return;
    }
    if (!key.starts_with("run/")) {
      bad("meta", key, "a key soma does not write");
      return;
    }
    auto run = std::string{key.substr(4)};
    auto m = detail::decode_run_meta(key, value, at("the metadata of run '" + run + "'", {}, 0));
    next_[run] = m.next;
    if (m.totals)
      totals_[run] = *m.totals;
  }

  void reading(std::string_view key, std::string_view value) {
    if (key == "count/latest") {
      std::string_view payload;
      if (detail::unseal(key, value, detail::sealed_kind::machines, payload)
            != detail::seal_state::ok
          || payload.size() != 8)
        bad("readings", key, "the count of machines with a reading is damaged");
      else
        machines_ = detail::from_be64(payload);
      return;
    }
    latest_ += key.starts_with("latest/");
    if (!key.starts_with("latest/") && !key.starts_with("r/")) {
      bad("readings", key, "a key soma does not write");
      return;
    }
    (void) detail::decode_stored_reading(key, value, env_.path());
  }

  void cache(std::string_view key, std::string_view value) {
    if (auto ok = detail::check_cache_entry(key, value); !ok)
      bad("cache", key, "the kept output is damaged: " + describe(ok.error())
                        + " (a read is a miss; it is computed and kept again)");
    else
      cached_.emplace(key);
  }

  void age(std::string_view key, std::string_view value) {
    if (key.size() <= 8 || value.size() != 8) {
      bad("cache_age", key, "an entry of the age index that is not 8 bytes of when, a key and "
                            "8 bytes of size");
      return;
    }
    aged_.emplace(key.substr(8));
  }

  void runs() {
    for (auto& [run, seen] : seen_) {
      auto next_it = next_.find(run);
      std::optional<std::uint64_t> next;
      if (next_it != next_.end())
        next = next_it->second;
      auto key = detail::meta_key(run);
      if (next) {
        if (seen.records.size() != *next
            || (!seen.records.empty() && *seen.records.rbegin() + 1 != *next))
          bad("records", key, "run '" + run + "' has " + std::to_string(*next)
                                + " forwards written (its metadata says), but "
                                + std::to_string(seen.records.size()) + " records were found");
      }
      if (auto kept = totals_.find(run); kept != totals_.end() && !seen.undecodable)
        compare(run, kept->second, seen.totals);
      for (auto n : seen.records)
        if (!seen.blobs.count(n))
          bad("facts", detail::record_key(run, n), "the record has no fact blob");
      for (auto n : seen.blobs)
        if (!seen.records.count(n))
          bad("records", detail::record_key(run, n), "the fact blob has no record");
    }
    for (auto& [run, kept] : totals_)
      if (!seen_.count(run))
        compare(run, kept, detail::run_totals{});
  }

  // The totals kept in a run's metadata against those its records add up
  // to (a run with metadata but no record adds up to none); every field
  // that differs, with both values.
  void compare(const std::string& run, const detail::run_totals& kept,
               const detail::run_totals& counted) {
    std::string diff;
    auto field = [&](const char* name, auto k, auto c) {
      if (k != c)
        diff += std::string{diff.empty() ? "" : ", "} + name + " " + std::to_string(k)
                + " where its records add up to " + std::to_string(c);
    };
    field("forwards", kept.forwards, counted.forwards);
    field("broke", kept.broke, counted.broke);
    field("took_us", kept.took_us, counted.took_us);
    field("first", kept.first, counted.first);
    field("last", kept.last, counted.last);
    if (kept.values_kept) { // since 0.4: its span and its summarised numbers
      field("first_us", kept.first_us, counted.first_us);
      field("end_us", kept.end_us, counted.end_us);
      auto by_key = [](std::vector<value_range> v) {
        std::sort(v.begin(), v.end(), [](auto& a, auto& b) { return a.key < b.key; });
        return v;
      };
      if (by_key(kept.values) != by_key(counted.values))
        diff += std::string{diff.empty() ? "" : ", "}
                + "summarised values (last, least, greatest) its records do not add up to";
    }
    if (!diff.empty())
      bad("meta", detail::meta_key(run), "the summary of run '" + run + "' says " + diff);
  }

  void ages() {
    for (auto& key : cached_)
      if (!aged_.count(key))
        bad("cache_age", key, "the kept output has no place in the age index");
  }

  const detail::environment& env_;
  check_report& report_;
  const check_progress& progress_;
  std::size_t total_ = 0;
  MDB_txn* txn_ = nullptr;
  MDB_dbi meta_ = 0;
  std::map<std::string, std::optional<detail::run_words>, std::less<>> words_;
  std::map<std::string, run_seen> seen_;
  std::optional<std::uint64_t> machines_;
  std::uint64_t latest_ = 0;
  std::map<std::string, std::optional<std::uint64_t>> next_;
  std::map<std::string, detail::run_totals> totals_;
  std::set<std::string, std::less<>> cached_, aged_;
};

} // namespace

check_report check(const store& s) { return s.backend().ask().check({}); }

check_report check(const store& s, const check_progress& progress) {
  return s.backend().ask().check(progress);
}

check_report detail::local_answers::check(const check_progress& progress) {
  check_report report;
  walker{env_, report, progress}.walk();
  return report;
}

} // namespace soma
