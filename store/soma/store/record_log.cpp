#include "soma/store/record_log.hpp"

#include <algorithm>
#include <cmath>
#include <charconv>
#include <chrono>
#include <random>

#include "soma/store/detail/cursor.hpp"
#include "soma/store/detail/environment.hpp"
#include "soma/store/detail/run_summaries.hpp"
#include "soma/store/detail/trial_runs.hpp"
#include "soma/store/keys.hpp"
#include "soma/store/detail/key_bytes.hpp"

namespace soma::detail {

namespace {

// The number after the last forward `run` has in `records`.
std::uint64_t after_last(const environment& env, MDB_txn* txn, MDB_dbi records,
                         const std::string& run) {
  cursor c{env, txn, records};
  auto past = past_run(run);
  bool ok = c.move(MDB_SET_RANGE, past) ? c.move(MDB_PREV) : c.move(MDB_LAST);
  std::string_view found;
  std::uint64_t last = 0;
  return ok && parse_record_key(c.key(), found, last) && found == run ? last + 1 : 0;
}

void clear_run(const environment& env, MDB_txn* txn, MDB_dbi dbi, const std::string& run) {
  cursor c{env, txn, dbi};
  auto prefix = run_prefix(run);
  while (c.move(MDB_SET_RANGE, prefix) && c.key().starts_with(prefix))
    c.del();
}

// `batch/<writer>`: where the numbers given to a writer's last batch are kept.
std::string batch_key(std::uint64_t writer) { return "batch/" + be64(writer); }

// (forward id, number) pairs.
using numbers = std::vector<std::pair<std::uint64_t, std::uint64_t>>;

// The (forward id, number) pairs kept under batch_key, as be64 pairs.
numbers numbers_given(std::string_view key, std::string_view bytes, const environment& env) {
  std::string_view pairs;
  open_sealed(key, bytes, sealed_kind::batch, origin{"a batch's numbers", {}, 0, env.path()}, pairs);
  numbers out;
  for (std::size_t i = 0; i + 16 <= pairs.size(); i += 16)
    out.emplace_back(from_be64(pairs.substr(i, 8)), from_be64(pairs.substr(i + 8, 8)));
  return out;
}

// The totals of `run` counted from its records, or none when one of them
// is damaged: the write goes on (it need not read them), and readers count
// the run from its records, where they report the damage.
std::optional<run_totals> counted(const environment& env, MDB_txn* txn, MDB_dbi records,
                                  const std::string& run) {
  try {
    return count_run(env, txn, records, run).totals;
  } catch (const store_error& e) {
    if (e.trouble() != store_trouble::damaged)
      throw;
    return std::nullopt;
  }
}

// Whether the summarised numbers of `t` stay right with `was` taken out:
// they do unless one of its numbers was a range's least, greatest or last
// and `now` does not say the same (then only a count of the run knows).
bool values_stay(const run_totals& t, const record& was, const record& now) {
  for (auto& [key, value] : was.summary) {
    auto x = value.number();
    if (!x || std::isnan(*x))
      continue; // never counted (count_forward)
    auto it = std::find_if(t.values.begin(), t.values.end(),
                           [&](const value_range& v) { return v.key == key; });
    if (it == t.values.end())
      return false;
    bool bound = *x == it->min || *x == it->max || was.forward == it->last_forward;
    auto same = std::find_if(now.summary.begin(), now.summary.end(),
                             [&](const field& f) { return f.key == key && f.value.number() == x; });
    if (bound && same == now.summary.end())
      return false;
  }
  return true;
}

// Takes the record `was`, about to be written over by `now`, out of `t`;
// false when that cannot be done without reading the run again: `was` held
// the run's first or last `when` and `now` does not, or `t` never held it.
bool take_back(run_totals& t, const record& was, const record& now) {
  bool broke = was.state == outcome::broke;
  if (t.forwards == 0 || t.broke < static_cast<std::uint64_t>(broke))
    return false;
  bool bounds_stay = t.forwards == 1 || was.when_s() == now.when_s()
                     || (t.first < was.when_s() && was.when_s() < t.last);
  // Its span (first began to last ended, µs) shrinks only when `was` held
  // one end and `now` gives up some of it.
  auto end_of = [](const record& r) { return r.when_us + std::max<std::int64_t>(0, r.took_us); };
  bool span_stays = t.forwards == 1
                    || ((was.when_us != t.first_us || now.when_us <= was.when_us)
                        && (end_of(was) != t.end_us || end_of(now) >= end_of(was)));
  if (!bounds_stay || !span_stays || !values_stay(t, was, now))
    return false;
  t.forwards -= 1;
  t.broke -= broke;
  t.took_us -= was.took_us;
  if (t.forwards == 0)
    t = run_totals{}; // the next forward added sets first and last
  return true;
}

// Sets the writer, params and tags of `m`, the run's metadata about to be
// written over `before`, as log_options says. (Looking for the run's trial
// is a seek or two, and only for a run named as trials' runs are.)
void describe(const environment& env, MDB_txn* txn, MDB_dbi trials, const log_options& options,
              const std::optional<run_meta>& before, run_meta& m) {
  m.writer = options.writer;
  if (!options.params.empty() || !options.tags.empty()) {
    m.params = options.params;
    m.tags = options.tags;
    return;
  }
  if (before && (!before->params.empty() || !before->tags.empty())) {
    m.params = before->params;
    m.tags = before->tags;
    return;
  }
  if (auto t = trial_of_run_in(env, txn, trials, options.run)) {
    m.params = t->trial.params;
    m.tags = {"study:" + t->study};
  }
}

// The metadata of `run`, kept under `key`, or none when it has none.
std::optional<run_meta> meta_in(const environment& env, MDB_txn* txn, MDB_dbi meta,
                                const std::string& key, const std::string& run) {
  std::string_view old;
  if (!env.get(txn, meta, key, old))
    return std::nullopt;
  return decode_run_meta(key, old, origin{"the metadata of run '" + run + "'", {}, 0,
                                          env.path()});
}

// The totals of `run` before a batch, the number after its last forward
// `had` and its metadata `before`: none to count in a run with no record
// (just cleared, or new), those kept when they count every record it has,
// else (an older soma wrote it last) one scan of its records, once.
std::optional<run_totals> totals_before(const environment& env, MDB_txn* txn, MDB_dbi records,
                                        const std::string& run, std::uint64_t had,
                                        const std::optional<run_meta>& before) {
  if (had == 0)
    return run_totals{};
  if (before && before->totals && before->totals->forwards == had && before->totals->values_kept
      && (before->totals->first_us != 0 || before->totals->end_us != 0))
    return before->totals;
  return counted(env, txn, records, run);
}

// The number `given` holds for forward `id` (0: none).
std::optional<std::uint64_t> given_to(const numbers& given, std::uint64_t id) {
  for (auto& [i, n] : given)
    if (i == id && id != 0)
      return n;
  return std::nullopt;
}

// Takes the record kept as `was` under `key` (forward `n` of `run`), about
// to be written over by `now`, out of `t`; false when the run must be
// counted again: take_back cannot, or `was` is damaged.
bool taken_back(run_totals& t, std::string_view key, std::string_view was, const record& now,
                const std::string& run, std::uint64_t n, const environment& env) {
  try {
    return take_back(t, decode_record(key, was, origin{"the record", run, n, env.path()}), now);
  } catch (const store_error& err) {
    if (err.trouble() != store_trouble::damaged)
      throw;
    return false;
  }
}

// Puts `value` under `key` in `d`. New forwards (`fresh`) of the run that
// sorts last go at the end of the database: appended, they fill LMDB's
// pages instead of splitting them. Once one cannot, `at_end` is false and
// the rest are put where they go.
inline void put_forward(environment& env, MDB_txn* txn, MDB_dbi d, const std::string& key,
                        const std::string& value, bool fresh, bool& at_end) {
  if (!(fresh && at_end && env.put(txn, d, key, value, MDB_APPEND))) {
    at_end = false;
    env.put(txn, d, key, value);
  }
}

// What a batch whose ids are `batch` was given so far (`numbered` now,
// `given` by earlier chunks and tries), and nothing of batches before it:
// (id, n) pairs as be64, to keep under batch_key.
std::string batch_numbers(const numbers& numbered, const numbers& given,
                          const std::vector<std::uint64_t>& batch) {
  std::string out;
  auto keep = [&](std::uint64_t id, std::uint64_t n) {
    if (std::find(batch.begin(), batch.end(), id) != batch.end()) {
      out += be64(id);
      out += be64(n);
    }
  };
  for (auto& [id, n] : numbered)
    keep(id, n);
  for (auto& [id, n] : given)
    if (std::find_if(numbered.begin(), numbered.end(), [id = id](auto& x) { return x.first == id; })
        == numbered.end())
      keep(id, n);
  return out;
}

} // namespace

namespace {

// An execution's id for a recorder that gives none: 64 random bits, not 0.
std::uint64_t made_up_id() {
  std::random_device rd;
  auto id = std::uint64_t{rd()} << 32 | rd();
  return id == 0 ? 1 : id;
}

} // namespace

record make_record(const std::vector<fact>& facts, std::uint64_t n, outcome state,
                   std::int64_t took_us, std::int64_t when_us,
                   const std::vector<std::string>& summarising) {
  record r;
  r.forward = n;
  r.state = state;
  r.took_us = took_us;
  r.when_us = when_us;
  std::vector<std::string_view> nodes;
  for (auto& x : facts) {
    if (x.name == "ran" || x.name == "failed" || x.name == "recalled") {
      auto node = x["node"].text();
      if (std::find(nodes.begin(), nodes.end(), node) == nodes.end())
        nodes.push_back(node);
    }
    if (std::find(summarising.begin(), summarising.end(), x.name) == summarising.end())
      continue;
    for (auto& fl : x.fields) {
      auto key = x.name + "." + fl.key;
      auto it = std::find_if(r.summary.begin(), r.summary.end(),
                             [&](const field& s) { return s.key == key; });
      if (it != r.summary.end())
        it->value = fl.value; // the last told counts
      else
        r.summary.emplace_back(std::move(key), fl.value);
    }
  }
  r.nodes = static_cast<std::uint32_t>(nodes.size());
  return r;
}

record_log::record_log(std::shared_ptr<environment> env, log_options options)
  : env_(std::move(env)), options_(std::move(options)),
    recorder_(options_.once_for ? options_.once_for : made_up_id()) {}

std::vector<std::pair<std::uint64_t, std::uint64_t>>
record_log::write(std::span<log_entry> entries, const std::vector<std::uint64_t>& batch) {
  staged_log done;
  env_->write([&](MDB_txn* txn, const std::function<MDB_dbi(db)>& dbi) {
    done = stage(txn, dbi, entries, batch);
  });
  adopt(done);
  return std::move(done.numbered);
}

bool record_log::note_execution(run_meta& m, std::uint64_t had, std::uint64_t first) const {
  auto& runs = m.executions;
  if (runs.empty() && had > 0) // forwards an older soma wrote: by whom, not known
    runs.push_back({0, m.totals && m.totals->forwards > 0 ? m.totals->first * 1'000'000 : 0, {}, 0, 0});
  if (!runs.empty() && runs.back().recorder == recorder_)
    return true; // a served client's recorder that reconnected: the same execution
  execution e{first, std::chrono::duration_cast<std::chrono::microseconds>(
                       std::chrono::system_clock::now().time_since_epoch())
                       .count(),
              options_.writer.host, options_.writer.pid, recorder_};
  // A served store's server writes for its client, which it names hostname-pid.
  if (auto& c = options_.writer.client; !c.empty()) {
    auto dash = c.rfind('-');
    e.host = c.substr(0, dash);
    e.pid = 0;
    if (dash != std::string::npos)
      std::from_chars(c.data() + dash + 1, c.data() + c.size(), e.pid);
  }
  runs.push_back(std::move(e));
  return true;
}

void record_log::adopt(staged_log& done) noexcept {
  cleared_ = done.cleared;
  next_ = done.next;
  execution_noted_ = execution_noted_ || done.execution_noted;
  if (done.words_written) {
    words_seen_ = std::move(*done.words_written);
    words_kept_ = done.words_kept;
  }
}

staged_log record_log::stage(MDB_txn* txn, const std::function<MDB_dbi(db)>& dbi,
                             std::span<log_entry> entries,
                             const std::vector<std::uint64_t>& batch) {
  auto& env = *env_;
  staged_log out;
  auto& numbered = out.numbered;
  auto& cleared = out.cleared;
  auto& next = out.next;
  const auto& run = options_.run;
  cleared = cleared_;
  auto records = dbi(db::records);
  auto blobs = dbi(db::facts);
  auto meta = dbi(db::meta);
  bool clears = options_.overwrite && !cleared;
  if (clears) {
    clear_run(env, txn, records, run);
    clear_run(env, txn, blobs, run);
    cleared = true;
  }
  auto had = after_last(env, txn, records, run);
  // The run's metadata as it was, and its totals as they are before this batch.
  auto meta_at = meta_key(run);
  auto before = meta_in(env, txn, meta, meta_at, run);
  auto totals = totals_before(env, txn, records, run, had, before);
  bool recount = false;
  bool fresh_run = had == 0 && next_ == 0;
  next = std::max(next_, had);
  numbers given;
  std::string_view kept;
  auto given_key = batch_key(options_.once_for);
  if (options_.once_for && env.get(txn, meta, given_key, kept))
    given = numbers_given(given_key, kept, env);
  // New forwards number after those given, even when this transaction
  // cleared the run again (a first batch, with overwrite, sent again).
  for (auto& [id, n] : given)
    next = std::max(next, n + 1);
  // The run's words as the store holds them: those this log read or wrote
  // last unless another writer of the run has added some since.
  auto words_at = words_key(run);
  std::string_view stored_words;
  bool has_words = env.get(txn, meta, words_at, stored_words);
  if (has_words ? stored_words != words_seen_ : !words_seen_.empty()) {
    words_ = has_words ? decode_run_words(words_at, stored_words,
                                          origin{"the words of run '" + run + "'", {}, 0,
                                                 env.path()})
                       : run_words{};
    words_seen_ = stored_words;
    words_kept_ = words_.size();
  }
  auto& words = words_;
  bool at_end = true;
  for (auto& e : entries) {
    auto again = e.number ? e.number : given_to(given, e.id);
    auto n = again ? *again : next++;
    numbered.emplace_back(e.id, n);
    auto key = record_key(run, n);
    e.rec.forward = n;
    std::string_view was;
    if (again && totals && !recount && env.get(txn, records, key, was))
      recount = !taken_back(*totals, key, was, e.rec, run, n, env); // written over
    buffer_.clear();
    encode_record_into(buffer_, e.rec, key);
    put_forward(env, txn, records, key, buffer_, !again, at_end);
    buffer_.clear();
    encode_facts_into(buffer_, *e.facts, key, words);
    put_forward(env, txn, blobs, key, buffer_, !again, at_end);
    if (totals && !recount)
      add_forward(*totals, e.rec);
  }
  if (words.size() != words_kept_) { // the blobs named new words: they are written with them
    out.words_written = encode_run_words(words, words_at);
    out.words_kept = words.size();
    env.put(txn, meta, words_at, *out.words_written);
  }
  if (recount)
    totals = counted(env, txn, records, run);
  if (options_.once_for)
    env.put(txn, meta, given_key,
            sealed(given_key, sealed_kind::batch, batch_numbers(numbered, given, batch)));
  // The run's metadata: what every record of it summarises (the first
  // writer of a run says, every later one can only narrow it, so a
  // fact's curve stays one scan), and the number after its last forward.
  // And the run's totals, with every record this transaction wrote.
  run_meta m{options_.summarising, std::nullopt};
  if (before && !fresh_run)
    std::erase_if(m.summarising, [&](const std::string& x) {
      return std::find(before->summarising.begin(), before->summarising.end(), x)
             == before->summarising.end();
    });
  m.next = std::max(next, after_last(env, txn, records, run));
  m.totals = totals;
  if (before && !clears)
    m.executions = before->executions;
  if (!execution_noted_ && !numbered.empty())
    out.execution_noted = note_execution(m, had, numbered.front().second);
  describe(env, txn, dbi(db::trials), options_, before, m);
  env.put(txn, meta, meta_at, encode_run_meta(m, meta_at));
  return out;
}

namespace {

std::int64_t now_us() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
           std::chrono::system_clock::now().time_since_epoch())
    .count();
}

// Rewrites the metadata of `run` in one write transaction with
// `change(meta, txn, records)`, unless it returns false; nothing when the
// run has none (nothing was ever written).
template <class Change>
void rewrite_meta(environment& env, const std::string& run, Change change) {
  env.write([&](MDB_txn* txn, auto& dbi) {
    auto meta = dbi(db::meta);
    auto key = meta_key(run);
    auto m = meta_in(env, txn, meta, key, run);
    if (m && change(*m, txn, dbi(db::records)))
      env.put(txn, meta, key, encode_run_meta(*m, key));
  });
}

} // namespace

void record_log::end() {
  auto now = now_us();
  env_->write([&](MDB_txn* txn, const std::function<MDB_dbi(db)>& dbi) { stage_end(txn, dbi, now); });
}

void record_log::stage_end(MDB_txn* txn, const std::function<MDB_dbi(db)>& dbi,
                           std::int64_t now) {
  auto meta = dbi(db::meta);
  auto key = meta_key(options_.run);
  auto m = meta_in(*env_, txn, meta, key, options_.run);
  if (!m)
    return; // nothing was ever written
  m->ended_us = now;
  m->dropped_us.reset();
  if (!m->totals) // an older soma wrote the run last: its totals, once
    m->totals = counted(*env_, txn, dbi(db::records), options_.run);
  env_->put(txn, meta, key, encode_run_meta(*m, key));
}

void record_log::dropped() {
  auto now = now_us();
  rewrite_meta(*env_, options_.run, [&](run_meta& m, MDB_txn*, MDB_dbi) {
    if (m.ended_us || m.writer != options_.writer)
      return false; // closed, or another writer has it now
    m.dropped_us = now;
    return true;
  });
}

} // namespace soma::detail
