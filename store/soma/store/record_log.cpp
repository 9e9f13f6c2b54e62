#include "soma/store/record_log.hpp"

#include <algorithm>
#include <chrono>

#include "soma/store/detail/cursor.hpp"
#include "soma/store/detail/environment.hpp"
#include "soma/store/keys.hpp"

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

// The (forward id, number) pairs kept under batch_key, as be64 pairs.
std::vector<std::pair<std::uint64_t, std::uint64_t>> numbers_given(std::string_view key,
                                                                   std::string_view bytes,
                                                                   const environment& env) {
  std::string_view pairs;
  open_sealed(key, bytes, sealed_kind::batch, origin{"a batch's numbers", {}, 0, env.path()}, pairs);
  std::vector<std::pair<std::uint64_t, std::uint64_t>> out;
  for (std::size_t i = 0; i + 16 <= pairs.size(); i += 16)
    out.emplace_back(from_be64(pairs.substr(i, 8)), from_be64(pairs.substr(i + 8, 8)));
  return out;
}

} // namespace

record make_record(const std::vector<fact>& facts, std::uint64_t n, outcome state,
                   std::int64_t took_us, std::int64_t when,
                   const std::vector<std::string>& summarising) {
  record r;
  r.forward = n;
  r.state = state;
  r.took_us = took_us;
  r.when = when;
  std::vector<std::string_view> nodes;
  for (auto& x : facts) {
    if (x.name == "ran" || x.name == "failed" || x.name == "recalled") {
      auto node = x["node"];
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
  : env_(std::move(env)), options_(std::move(options)) {}

std::vector<std::pair<std::uint64_t, std::uint64_t>>
record_log::write(std::span<log_entry> entries, const std::vector<std::uint64_t>& batch) {
  auto& env = *env_;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> numbered;
  bool cleared = cleared_;
  std::uint64_t next = next_;
  const auto& run = options_.run;
  env.write([&](MDB_txn* txn, auto& dbi) {
    numbered.clear();
    cleared = cleared_;
    auto records = dbi(db::records);
    auto blobs = dbi(db::facts);
    auto meta = dbi(db::meta);
    if (options_.overwrite && !cleared) {
      clear_run(env, txn, records, run);
      clear_run(env, txn, blobs, run);
      cleared = true;
    }
    auto had = after_last(env, txn, records, run);
    bool fresh_run = had == 0 && next_ == 0;
    next = std::max(next_, had);
    std::vector<std::pair<std::uint64_t, std::uint64_t>> given;
    std::string_view kept;
    auto given_key = batch_key(options_.once_for);
    if (options_.once_for && env.get(txn, meta, given_key, kept))
      given = numbers_given(given_key, kept, env);
    // New forwards number after those given, even when this transaction
    // cleared the run again (a first batch, with overwrite, sent again).
    for (auto& [id, n] : given)
      next = std::max(next, n + 1);
    auto given_to = [&](std::uint64_t id) -> std::optional<std::uint64_t> {
      for (auto& [i, n] : given)
        if (i == id && id != 0)
          return n;
      return std::nullopt;
    };
    // New forwards of the run that sorts last go at the end of both
    // databases: appended, they fill LMDB's pages instead of splitting them.
    bool at_end = true;
    auto put = [&](MDB_dbi d, const std::string& key, bool fresh) {
      if (!(fresh && at_end && env.put(txn, d, key, buffer_, MDB_APPEND))) {
        at_end = false;
        env.put(txn, d, key, buffer_);
      }
    };
    for (auto& e : entries) {
      auto again = e.number ? e.number : given_to(e.id);
      auto n = again ? *again : next++;
      numbered.emplace_back(e.id, n);
      auto key = record_key(run, n);
      e.rec.forward = n;
      buffer_.clear();
      encode_record_into(buffer_, e.rec, key);
      put(records, key, !again);
      buffer_.clear();
      encode_facts_into(buffer_, *e.facts, key);
      put(blobs, key, !again);
    }
    if (options_.once_for) {
      // What this batch was given so far (earlier chunks, earlier tries),
      // and nothing of batches before it.
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
        if (std::find_if(numbered.begin(), numbered.end(),
                         [id = id](auto& x) { return x.first == id; })
            == numbered.end())
          keep(id, n);
      env.put(txn, meta, given_key, sealed(given_key, sealed_kind::batch, out));
    }
    // The run's metadata: what every record of it summarises (the first
    // writer of a run says, every later one can only narrow it, so a
    // fact's curve stays one scan), and the number after its last forward.
    auto key = meta_key(run);
    run_meta m{options_.summarising, std::nullopt};
    std::string_view old;
    if (env.get(txn, meta, key, old)) {
      auto before = decode_run_meta(key, old, origin{"the metadata of run '" + run + "'", {}, 0,
                                                     env.path()});
      if (!fresh_run)
        std::erase_if(m.summarising, [&](const std::string& x) {
          return std::find(before.summarising.begin(), before.summarising.end(), x)
                 == before.summarising.end();
        });
    }
    m.next = std::max(next, after_last(env, txn, records, run));
    env.put(txn, meta, key, encode_run_meta(m, key));
  });
  cleared_ = cleared;
  next_ = next;
  return numbered;
}

void record_log::end() {
  auto now = std::chrono::duration_cast<std::chrono::microseconds>(
               std::chrono::system_clock::now().time_since_epoch())
               .count();
  const auto& run = options_.run;
  env_->write([&](MDB_txn* txn, auto& dbi) {
    auto meta = dbi(db::meta);
    auto key = meta_key(run);
    run_meta m{options_.summarising, std::nullopt};
    std::string_view old;
    if (!env_->get(txn, meta, key, old))
      return; // nothing was ever written: there is no run to mark
    m = decode_run_meta(key, old, origin{"the metadata of run '" + run + "'", {}, 0, env_->path()});
    m.ended_us = now;
    env_->put(txn, meta, key, encode_run_meta(m, key));
  });
}

} // namespace soma::detail
