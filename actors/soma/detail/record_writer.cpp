#include "soma/detail/record_writer.hpp"

#include <algorithm>
#include <random>

#include <kj/exception.h>

#include <caf/actor_system.hpp>
#include <caf/stateful_actor.hpp>

#include "soma/detail/record_wire.hpp"
#include "soma/error.hpp"
#include "soma/store/detail/environment.hpp"
#include "soma/store/keys.hpp"
#include "soma/store/remote.hpp"

namespace soma::detail {

namespace {

struct writer_state {
  std::optional<store> where;
  writer_options options;
  bool cleared = false;       ///< the run was cleared for overwrite
  bool meta_written = false;
  std::uint64_t next = 0;     ///< the least number a new forward gets
  std::vector<held_forward> unwritten; ///< kept from a failed write
  std::uint64_t recorder = 0; ///< who this writer is, to a served store's server
  std::vector<std::uint64_t> asked; ///< the forward ids of the batch being written (once_for)
  static inline const char* name = "soma.record_writer";
};

using writer_actor = caf::stateful_actor<writer_state>;

// The number after the last forward `run` has in `records`.
std::uint64_t after_last(environment& env, MDB_txn* txn, MDB_dbi records, const std::string& run) {
  MDB_cursor* cur = nullptr;
  if (int rc = mdb_cursor_open(txn, records, &cur); rc != 0)
    env.fail(rc, "opening a cursor");
  auto prefix = run_prefix(run);
  auto past = prefix;
  past.back() = static_cast<char>('/' + 1);
  auto k = val(past);
  MDB_val v;
  int rc = mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE);
  rc = rc == 0 ? mdb_cursor_get(cur, &k, &v, MDB_PREV) : mdb_cursor_get(cur, &k, &v, MDB_LAST);
  std::string_view found;
  std::uint64_t last = 0;
  bool any = rc == 0 && parse_record_key(view(k), found, last) && found == run;
  mdb_cursor_close(cur);
  return any ? last + 1 : 0;
}

void clear_run(environment& env, MDB_txn* txn, MDB_dbi dbi, const std::string& run) {
  MDB_cursor* cur = nullptr;
  if (int rc = mdb_cursor_open(txn, dbi, &cur); rc != 0)
    env.fail(rc, "opening a cursor");
  auto prefix = run_prefix(run);
  for (;;) {
    auto k = val(prefix);
    MDB_val v;
    if (mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE) != 0 || !view(k).starts_with(prefix))
      break;
    if (int rc = mdb_cursor_del(cur, 0); rc != 0) {
      mdb_cursor_close(cur);
      if (rc == MDB_MAP_FULL)
        throw map_full{};
      env.fail(rc, "clearing the run to overwrite it");
    }
  }
  mdb_cursor_close(cur);
}

// Adds `batch` to what is unwritten; a forward already there is replaced.
void merge(std::vector<held_forward>& unwritten, std::vector<held_forward>&& batch) {
  for (auto& f : batch) {
    auto it = std::find_if(unwritten.begin(), unwritten.end(),
                           [&](const held_forward& u) { return u.id == f.id && f.id != 0; });
    if (it != unwritten.end())
      *it = std::move(f);
    else
      unwritten.push_back(std::move(f));
  }
}

// `batch/<recorder>`: where a served store's server keeps the numbers it
// gave a client recorder's last batch.
std::string batch_key(std::uint64_t recorder) { return "batch/" + be64(recorder); }

// The (forward id, number) pairs kept under batch_key, as be64 pairs.
std::vector<std::pair<std::uint64_t, std::uint64_t>> numbers_given(std::string_view bytes) {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> out;
  for (std::size_t i = 0; i + 16 <= bytes.size(); i += 16)
    out.emplace_back(from_be64(bytes.substr(i, 8)), from_be64(bytes.substr(i + 8, 8)));
  return out;
}

// Writes the first `count` unwritten forwards in one transaction, adding
// their numbers to `out`. Throws what the transaction threw.
void write_chunk(writer_state& st, std::size_t count, record_numbers& out) {
  auto& env = st.where->env();
  std::vector<std::pair<std::uint64_t, std::uint64_t>> numbered;
  bool cleared = st.cleared;
  std::uint64_t next = st.next;
  env.write([&](MDB_txn* txn, auto& dbi) {
    numbered.clear();
    cleared = st.cleared;
    auto records = dbi(db::records);
    auto blobs = dbi(db::facts);
    if (st.options.overwrite && !cleared) {
      clear_run(env, txn, records, st.options.run);
      clear_run(env, txn, blobs, st.options.run);
      cleared = true;
    }
    // After whatever the run has now: another recorder of this run may
    // have written since this one started.
    auto had = after_last(env, txn, records, st.options.run);
    bool fresh_run = had == 0 && st.next == 0;
    next = std::max(st.next, had);
    // A batch sent again (its answer was lost): its forwards keep the
    // numbers they were given, and are written over, never twice.
    std::vector<std::pair<std::uint64_t, std::uint64_t>> given;
    std::string_view kept;
    if (st.options.once_for && env.get(txn, dbi(db::meta), batch_key(st.options.once_for), kept))
      given = numbers_given(kept);
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
    for (std::size_t i = 0; i < count; ++i) {
      auto& f = st.unwritten[i];
      auto again = f.number ? f.number : given_to(f.id);
      auto n = again ? *again : next++;
      numbered.emplace_back(f.id, n);
      auto key = record_key(st.options.run, n);
      env.put(txn, records, key, encode_record(to_record(f, n, st.options.summarising)));
      env.put(txn, blobs, key, encode_facts(f.facts));
    }
    if (st.options.once_for) {
      // What this batch was given so far (earlier chunks, earlier tries),
      // and nothing of batches before it.
      std::string out;
      auto keep = [&](std::uint64_t id, std::uint64_t n) {
        if (std::find(st.asked.begin(), st.asked.end(), id) != st.asked.end()) {
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
      env.put(txn, dbi(db::meta), batch_key(st.options.once_for), out);
    }
    if (!st.meta_written) {
      // A fact's curve is one scan only if every record of the run holds
      // it: the first recorder of a run says what it summarises, every
      // later one can only narrow that.
      auto meta = dbi(db::meta);
      auto key = meta_key(st.options.run);
      auto names = st.options.summarising;
      std::string_view old;
      if (!fresh_run) {
        std::vector<std::string> before;
        if (env.get(txn, meta, key, old)) {
          auto what = "the metadata of run '" + st.options.run + "'";
          before = decode_run_meta(old, origin{what});
        }
        std::erase_if(names, [&](const std::string& n) {
          return std::find(before.begin(), before.end(), n) == before.end();
        });
      }
      env.put(txn, meta, key, encode_run_meta(names));
    }
  });
  st.cleared = cleared;
  st.meta_written = true;
  st.next = next;
  st.unwritten.erase(st.unwritten.begin(), st.unwritten.begin() + static_cast<std::ptrdiff_t>(count));
  out.numbered.insert(out.numbered.end(), numbered.begin(), numbered.end());
}

// A served store: the server's own writer for this recorder writes the batch
// as if local and keeps what it could not write; what did not reach it stays
// here, to go with the next batch.
record_numbers write_remote(writer_state& st, remote_link& link) {
  record_numbers out;
  try {
    auto answer = decode_record_numbers(
      link.call("records", encode_record_write({st.recorder, st.options, st.unwritten})));
    st.unwritten.clear();
    // Cleared once: a later session of this recorder (after a reconnect)
    // must not clear what this one wrote.
    st.options.overwrite = false;
    out.numbered = std::move(answer.numbered);
    if (answer.error)
      out.error = "the served store " + link.address() + ": " + *answer.error;
  } catch (const std::exception& e) {
    out.error = e.what();
  }
  return out;
}

record_numbers write(writer_actor* self, record_batch& batch) {
  auto& st = self->state;
  merge(st.unwritten, std::move(batch.forwards));
  if (st.options.once_for) {
    st.asked.clear();
    for (auto& f : st.unwritten)
      st.asked.push_back(f.id);
  }
  if (auto* link = st.where->remote())
    return write_remote(st, *link);
  record_numbers out;
  while (!st.unwritten.empty()) {
    try {
      write_chunk(st, std::min(st.unwritten.size(), st.options.batch), out);
    } catch (const std::exception& e) {
      // store_error, or anything else: what is left stays unwritten, to be
      // tried with the next batch; the writer lives on.
      out.error = e.what();
      break;
    } catch (const kj::Exception& e) {
      out.error = e.getDescription().cStr();
      break;
    }
  }
  return out;
}

caf::behavior writing(writer_actor* self, store where, writer_options options) {
  self->state.where = std::move(where);
  self->state.options = std::move(options);
  self->state.options.batch = std::max<std::size_t>(1, self->state.options.batch);
  self->state.recorder = std::random_device{}() * (std::uint64_t{1} << 32) ^ std::random_device{}();
  return {
    [self](write_atom, record_batch& batch) { return write(self, batch); },
  };
}

} // namespace

caf::actor spawn_record_writer(caf::actor_system& sys, store where, writer_options options) {
  return sys.spawn<caf::detached>(writing, std::move(where), std::move(options));
}

record to_record(const held_forward& f, std::uint64_t n, const std::vector<std::string>& summarising) {
  record r;
  r.forward = n;
  r.state = f.state;
  r.took_us = f.took_us;
  r.when = f.when;
  std::vector<std::string_view> nodes;
  for (auto& x : f.facts) {
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

} // namespace soma::detail
