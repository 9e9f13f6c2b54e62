#include "soma/recorder.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <deque>
#include <optional>
#include <stdexcept>

#include <caf/actor_system.hpp>
#include <caf/scoped_actor.hpp>
#include <caf/stateful_actor.hpp>

#include "soma/error.hpp"
#include "soma/store/detail/environment.hpp"
#include "soma/store/keys.hpp"
#include "soma/store/record.hpp"

namespace soma {

namespace {

using flush_atom = caf::atom_constant<caf::atom("flush")>;
using tick_atom = caf::atom_constant<caf::atom("tick")>;
using close_atom = caf::atom_constant<caf::atom("close")>;

/// A forward the recorder holds until it is written (and the latest one a
/// little longer, since facts told after it finished still belong to it).
struct held_forward {
  std::uint64_t id = 0; ///< the engine's forward id
  std::optional<std::uint64_t> number;
  std::vector<fact> facts;
  outcome state = outcome::open;
  std::int64_t took_us = 0;
  std::int64_t when = 0;
  bool dirty = false;
};

struct recorder_state {
  std::optional<store> where;
  std::string run;
  std::vector<std::string> summarising;
  bool overwrite = false;
  bool cleared = false;
  bool meta_written = false;
  std::chrono::milliseconds durable_within{100};
  std::size_t batch = 1000;
  std::deque<held_forward> held; ///< oldest first; the back began last
  std::vector<fact> prelude;     ///< told before any forward began
  std::uint64_t next = 0;        ///< the least number the next new forward gets
  std::size_t dirty = 0;
  bool tick_due = false;
  std::optional<std::string> error; ///< the last write's failure
  static inline const char* name = "soma.recorder";
};

using recorder_actor = caf::stateful_actor<recorder_state>;

std::int64_t unix_now() {
  return std::chrono::duration_cast<std::chrono::seconds>(
           std::chrono::system_clock::now().time_since_epoch())
    .count();
}

record to_record(const recorder_state& st, const held_forward& f, std::uint64_t n) {
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
    if (std::find(st.summarising.begin(), st.summarising.end(), x.name) == st.summarising.end())
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

// Writes every dirty forward in one transaction. On failure keeps them
// dirty and remembers why; the next tick tries again.
void write(recorder_actor* self, bool closing) {
  auto& st = self->state;
  if (closing && !st.prelude.empty()) {
    // Facts told with no forward at all still get kept, as a forward of
    // their own that never ran.
    held_forward f;
    f.when = unix_now();
    f.facts = std::move(st.prelude);
    f.dirty = true;
    st.prelude.clear();
    st.held.push_back(std::move(f));
    ++st.dirty;
  }
  if (st.dirty == 0)
    return;
  auto& env = st.where->env();
  std::vector<std::uint64_t> numbers;
  bool cleared = st.cleared;
  try {
    env.write([&](MDB_txn* txn, auto& dbi) {
      numbers.clear();
      cleared = st.cleared;
      auto records = dbi(detail::db::records);
      auto blobs = dbi(detail::db::facts);
      auto prefix = detail::run_prefix(st.run);
      if (st.overwrite && !cleared) {
        for (auto which : {records, blobs}) {
          MDB_cursor* cur = nullptr;
          if (int rc = mdb_cursor_open(txn, which, &cur); rc != 0)
            env.fail(rc, "opening a cursor");
          for (;;) {
            auto k = detail::val(prefix);
            MDB_val v;
            if (mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE) != 0
                || !detail::view(k).starts_with(prefix))
              break;
            if (int rc = mdb_cursor_del(cur, 0); rc != 0)
              env.fail(rc, "clearing the run to overwrite it");
          }
          mdb_cursor_close(cur);
        }
        cleared = true;
      }
      // Number after whatever is in the run now: another recorder of this
      // run may have written since this one started.
      std::uint64_t next = st.next;
      {
        MDB_cursor* cur = nullptr;
        if (int rc = mdb_cursor_open(txn, records, &cur); rc != 0)
          env.fail(rc, "opening a cursor");
        auto past = prefix;
        past.back() = static_cast<char>('/' + 1);
        auto k = detail::val(past);
        MDB_val v;
        int rc = mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE);
        rc = rc == 0 ? mdb_cursor_get(cur, &k, &v, MDB_PREV) : mdb_cursor_get(cur, &k, &v, MDB_LAST);
        std::string_view run;
        std::uint64_t last = 0;
        if (rc == 0 && detail::parse_record_key(detail::view(k), run, last) && run == st.run)
          next = std::max(next, last + 1);
        mdb_cursor_close(cur);
      }
      for (auto& f : st.held) {
        auto n = f.number ? *f.number : next++;
        numbers.push_back(n);
        if (!f.dirty)
          continue;
        auto key = detail::record_key(st.run, n);
        env.put(txn, records, key, detail::encode_record(to_record(st, f, n)));
        env.put(txn, blobs, key, detail::encode_facts(f.facts));
      }
      if (!st.meta_written) {
        auto meta = dbi(detail::db::meta);
        auto key = detail::meta_key(st.run);
        std::vector<std::string> names;
        std::string_view old;
        if (env.get(txn, meta, key, old))
          names = detail::decode_run_meta(old, "the metadata of run '" + st.run + "'");
        for (auto& s : st.summarising)
          if (std::find(names.begin(), names.end(), s) == names.end())
            names.push_back(s);
        env.put(txn, meta, key, detail::encode_run_meta(names));
      }
    });
  } catch (const store_error& e) {
    st.error = e.what();
    if (!st.tick_due && !closing) {
      st.tick_due = true;
      self->delayed_send(self, st.durable_within, tick_atom::value);
    }
    return;
  }
  st.error.reset();
  st.cleared = cleared;
  st.meta_written = true;
  for (std::size_t i = 0; i < st.held.size(); ++i) {
    auto& f = st.held[i];
    f.number = numbers[i];
    f.dirty = false;
    st.next = std::max(st.next, numbers[i] + 1);
  }
  st.dirty = 0;
  // Keep the latest forward (facts told after it still belong to it) and
  // any still running; the rest are done.
  std::deque<held_forward> keep;
  for (std::size_t i = 0; i < st.held.size(); ++i)
    if (i + 1 == st.held.size() || st.held[i].state == outcome::open)
      keep.push_back(std::move(st.held[i]));
  st.held = std::move(keep);
}

void touched(recorder_actor* self, held_forward& f) {
  auto& st = self->state;
  if (!f.dirty) {
    f.dirty = true;
    ++st.dirty;
  }
  if (st.dirty >= st.batch) {
    write(self, false);
  } else if (!st.tick_due) {
    st.tick_due = true;
    self->delayed_send(self, st.durable_within, tick_atom::value);
  }
}

held_forward& forward_for(recorder_actor* self, std::uint64_t id) {
  auto& st = self->state;
  for (auto it = st.held.rbegin(); it != st.held.rend(); ++it)
    if (it->id == id)
      return *it;
  held_forward f;
  f.id = id;
  f.when = unix_now();
  f.facts = std::move(st.prelude);
  st.prelude.clear();
  st.held.push_back(std::move(f));
  return st.held.back();
}

void take(recorder_actor* self, held_forward& f, fact&& x) {
  if (x.name == "finished" || x.name == "broke") {
    f.state = x.name == "finished" ? outcome::ok : outcome::broke;
    if (auto* t = x.find("took_us"))
      f.took_us = std::stoll(*t);
  }
  f.facts.push_back(std::move(x));
  touched(self, f);
}

caf::behavior recording(recorder_actor* self, store where, recorder_options options) {
  auto& st = self->state;
  st.where = std::move(where);
  st.run = std::move(options.run);
  st.summarising = std::move(options.summarising);
  st.overwrite = options.overwrite;
  st.durable_within = options.durable_within;
  st.batch = std::max<std::size_t>(1, options.batch);
  return {
    [self](forward_fact& x) {
      auto& f = forward_for(self, x.forward);
      take(self, f, std::move(x.fact));
    },
    [self](fact& x) {
      auto& st = self->state;
      if (st.held.empty()) {
        st.prelude.push_back(std::move(x));
        return;
      }
      take(self, st.held.back(), std::move(x));
    },
    [self](tick_atom) {
      self->state.tick_due = false;
      write(self, false);
    },
    [self](flush_atom) -> caf::result<void> {
      write(self, false);
      if (auto& e = self->state.error)
        return make_error(error_code::store_failed, "", *e);
      return caf::unit;
    },
    [self](close_atom) -> caf::result<void> {
      write(self, true);
      self->quit();
      if (auto& e = self->state.error)
        return make_error(error_code::store_failed, "", *e);
      return caf::unit;
    },
  };
}

std::optional<std::string> ask(caf::actor_system& sys, const caf::actor& a, caf::message msg) {
  std::optional<std::string> failure;
  caf::scoped_actor self{sys};
  self->request(a, caf::infinite, std::move(msg))
    .receive([] {}, [&](caf::error& e) { failure = describe(e); });
  return failure;
}

} // namespace

recorder::recorder(caf::actor_system& sys, store s, recorder_options options)
  : sys_(&sys), run_(options.run) {
  if (auto why = why_not_a_run_id(options.run))
    throw std::invalid_argument("cannot record: " + *why);
  if (s.read_only())
    throw store_error("cannot record into '" + s.path() + "': it was opened read-only");
  actor_ = sys.spawn<caf::detached>(recording, std::move(s), std::move(options));
}

recorder& recorder::operator=(recorder&& other) noexcept {
  if (this != &other) {
    close();
    sys_ = other.sys_;
    actor_ = std::move(other.actor_);
    run_ = std::move(other.run_);
  }
  return *this;
}

recorder::~recorder() {
  close();
}

void recorder::close() noexcept {
  if (!actor_)
    return;
  try {
    if (auto failure = ask(*sys_, actor_, caf::make_message(close_atom::value)))
      std::fprintf(stderr, "soma: the recorder of run '%s' could not write its last forwards: %s\n",
                   run_.c_str(), failure->c_str());
  } catch (...) {
    std::fprintf(stderr, "soma: the recorder of run '%s' could not be closed\n", run_.c_str());
  }
  actor_ = nullptr;
}

void recorder::tell(fact x) const {
  caf::anon_send(actor_, std::move(x));
}

void recorder::flush() const {
  if (auto failure = ask(*sys_, actor_, caf::make_message(flush_atom::value)))
    throw store_error(*failure);
}

} // namespace soma
