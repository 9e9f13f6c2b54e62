#include "soma/recorder.hpp"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <deque>
#include <optional>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <unordered_map>

#include <caf/actor_system.hpp>
#include <caf/scoped_actor.hpp>
#include <caf/send.hpp>
#include <caf/stateful_actor.hpp>

#include "soma/detail/deterministic.hpp"
#include "soma/detail/letter.hpp"
#include "soma/detail/record_writer.hpp"
#include "soma/error.hpp"
#include "soma/store/keys.hpp"
#include "soma/store/readers.hpp"
#include "soma/vocabulary.hpp"

namespace soma {

namespace {

using detail::held_forward;

using flush_atom = caf::atom_constant<caf::atom("flush")>;
using tick_atom = caf::atom_constant<caf::atom("tick")>;
using close_atom = caf::atom_constant<caf::atom("close")>;
using arrived_atom = caf::atom_constant<caf::atom("arrived")>;

}  // namespace

namespace detail {

/// Where facts wait for the recorder's actor: the sink appends on the
/// node's (or the teller's) thread, in the order they happened; the actor
/// takes them all at once when it is woken, which is once when the inbox
/// stops being empty and once when a batch of forwards ended, not once per
/// fact. (Counted by their ends, vocabulary::ends_forward: forwards in
/// flight interleave their facts, so a change of forward from one fact to
/// the next says nothing.)
struct recorder_inbox {
  struct item {
    std::uint64_t forward; ///< 0: told through recorder::tell
    fact x;
  };
  std::mutex mtx;
  std::vector<item> items;
  /// Facts of forwards written, whose capacity add() reuses: a fact copied
  /// here then allocates nothing, and the recorder frees nothing its
  /// sinks' threads made (benchmarks/README.md, "A recorder's forwards
  /// freed where they were made"). At most spare_kept.
  std::vector<fact> spare;
  static constexpr std::size_t spare_kept = 8192;
  std::size_t ended = 0;    ///< forwards whose end is in `items`
  std::size_t batch = 1000;
  bool woken = false;       ///< an arrived message is on its way
  bool full_said = false;   ///< ... and one for a full batch
  caf::actor actor;         ///< none once the recorder closed

  void add(std::uint64_t forward, const fact& x) {
    arrive(forward, x.name, [&] {
      // Copied first: a copy that throws leaves nothing half made in items.
      fact copy;
      if (!spare.empty()) {
        copy = std::move(spare.back());
        spare.pop_back();
      }
      copy = x;
      items.push_back(item{forward, std::move(copy)});
    });
  }

  void put(std::uint64_t forward, fact&& x) {
    arrive(forward, x.name, [&] { items.push_back(item{forward, std::move(x)}); });
  }

  /// Everything waiting, in the order it came; `out`'s capacity becomes
  /// the next items' (the recorder gives back the vector it took last).
  void take(std::vector<item>& out) {
    out.clear();
    std::lock_guard guard{mtx};
    out.swap(items);
    ended = 0;
    woken = false;
    full_said = false;
  }

  /// Keeps the facts of `written` for add() to reuse, up to spare_kept,
  /// and only those worth keeping (detail/letter.hpp).
  void give_back(std::vector<held_forward>& written) {
    std::lock_guard guard{mtx};
    for (auto& f : written)
      for (auto& x : f.facts) {
        if (spare.size() >= spare_kept)
          return;
        if (worth_keeping(x))
          spare.push_back(std::move(x));
      }
  }

private:
  // Appends with `push` under the lock and wakes the actor when it should.
  template <class Push>
  void arrive(std::uint64_t forward, const std::string& name, Push&& push) {
    caf::actor wake;
    bool full = false;
    {
      std::lock_guard guard{mtx};
      if (!actor)
        return; // closed: nobody would take it
      push();
      if (forward != 0 && vocabulary::ends_forward(name))
        ++ended;
      full = ended >= batch;
      if (!woken || (full && !full_said)) {
        full_said = full;
        woken = true;
        wake = actor;
      }
    }
    if (wake)
      caf::anon_send(wake, arrived_atom::value, full);
  }
};

} // namespace detail

namespace {

struct held_entry {
  held_forward forward;
  bool dirty = false;
};

/// Somebody waiting until batch `target` is written.
struct waiter {
  std::uint64_t target;
  caf::response_promise promise;
  bool closing;
};

// The recorder proper: a pooled actor that groups facts into forwards in
// memory (cheap, so it runs where the node actors run, with no thread to
// wake per fact) and hands whole batches to the detached writer.
struct recorder_state {
  std::shared_ptr<detail::recorder_inbox> inbox;
  caf::actor writer;
  std::chrono::milliseconds durable_within{100};
  std::size_t batch = 1000;
  std::deque<held_entry> held; ///< oldest first; the back began last
  /// Where each held forward is, by id: with many forwards in flight and a
  /// write in flight, thousands are held, and a walk per fact would cost
  /// their number. (A deque's push_back keeps references; rebuilt when
  /// held is trimmed.)
  std::unordered_map<std::uint64_t, held_entry*> index;
  std::vector<fact> prelude;   ///< told before any forward began
  std::vector<detail::recorder_inbox::item> taken; ///< the inbox's last items, kept for their capacity
  /// Fact lists of forwards written, emptied, for new forwards' facts: at
  /// most spare_lists_kept, each one a letter's pool would keep (a long
  /// forward's copy, written at every tick, is not kept).
  std::vector<std::vector<fact>> spare_lists;
  static constexpr std::size_t spare_lists_kept = 4096;
  /// What `taken` keeps of its capacity between drains, in items.
  static constexpr std::size_t taken_room = 16384;
  std::size_t dirty = 0;
  bool tick_due = false;
  std::uint64_t sent = 0; ///< batches handed to the writer
  std::uint64_t done = 0; ///< batches the writer answered
  std::vector<waiter> waiting;
  caf::error error; ///< the last write's failure (error_code::store_failed), or none
  int close_retries = 0;
  /// Closing: every write from now on is the last batch, which marks the
  /// run ended once written (run_meta::ended_us).
  bool closing = false;
  static inline const char* name = "soma.recorder";
};

using recorder_actor = caf::stateful_actor<recorder_state>;

std::int64_t unix_now_us() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
           std::chrono::system_clock::now().time_since_epoch())
    .count();
}

void schedule_tick(recorder_actor* self);

// How often a close tries again a write that failed, before it gives up on
// what the writer still holds (and says so).
constexpr int close_attempts = 3;

void answer_waiters(recorder_actor* self) {
  auto& st = self->state;
  std::vector<waiter> still;
  bool close = false;
  for (auto& w : st.waiting) {
    if (w.target > st.done) {
      still.push_back(std::move(w));
      continue;
    }
    if (w.closing && st.error && ++st.close_retries < close_attempts) {
      // The last write failed: try again on the next tick before giving up.
      w.target = st.sent + 1;
      still.push_back(std::move(w));
      schedule_tick(self);
      continue;
    }
    if (st.error)
      w.promise.deliver(st.error);
    else
      w.promise.deliver(caf::unit);
    close |= w.closing;
  }
  st.waiting = std::move(still);
  if (close) {
    self->send_exit(st.writer, caf::exit_reason::user_shutdown);
    self->quit();
  }
}

// A write failed: a flush waiting for it or for the next one hears so now.
// What it waited for was not all written, and the next try (on the next
// tick, carrying what the writer kept) reconnects to a served store, which
// a server that stopped answering fails only after the silence allowed:
// waiting for it too would double the bound a flush is held to (docs/fleet.md,
// "When the server stops answering"). A close keeps trying (close_attempts).
void fail_flushes(recorder_actor* self) {
  auto& st = self->state;
  std::vector<waiter> still;
  for (auto& w : st.waiting) {
    if (w.closing)
      still.push_back(std::move(w));
    else
      w.promise.deliver(st.error);
  }
  st.waiting = std::move(still);
}

void start_write(recorder_actor* self);

void schedule_tick(recorder_actor* self) {
  auto& st = self->state;
  if (!st.tick_due) {
    st.tick_due = true;
    self->delayed_send(self, st.durable_within, tick_atom::value);
  }
}

// What came in while the writer wrote waits for a full batch, the next tick,
// or somebody waiting: writing again at once would write a few forwards per
// transaction and pay two disk syncs for each few.
void after_write(recorder_actor* self) {
  auto& st = self->state;
  bool asked = std::any_of(st.waiting.begin(), st.waiting.end(),
                           [&](const waiter& w) { return w.target > st.sent; });
  if (st.dirty >= st.batch || asked)
    start_write(self);
  else if (st.dirty > 0)
    schedule_tick(self);
}

// Keeps what the forwards written hold for new ones: their facts for the
// inbox, their emptied lists for entry_for. What is not kept is freed here,
// on a thread the forwards' sinks run on.
void recycle(recorder_state& st, std::vector<held_forward>& written) {
  st.inbox->give_back(written);
  for (auto& f : written) {
    if (st.spare_lists.size() >= recorder_state::spare_lists_kept)
      break;
    f.facts.clear(); // what give_back did not keep is freed here
    if (!detail::worth_keeping(f.facts))
      continue;
    st.spare_lists.push_back(std::move(f.facts));
  }
}

void start_write(recorder_actor* self) {
  auto& st = self->state;
  bool writing = st.sent != st.done; // one batch in flight at a time
  if (writing || (st.dirty == 0 && !st.error && !st.closing))
    return;
  // Forwards that are done and not the latest leave with this batch; the
  // latest (facts told after it still belong to it) and the running stay.
  detail::record_batch batch;
  batch.closing = st.closing;
  std::deque<held_entry> keep;
  for (std::size_t i = 0; i < st.held.size(); ++i) {
    auto& e = st.held[i];
    bool stays = i + 1 == st.held.size() || e.forward.state == outcome::open;
    if (e.dirty) {
      if (stays)
        batch.forwards.push_back(e.forward);
      else
        batch.forwards.push_back(std::move(e.forward));
      e.dirty = false;
    }
    if (stays)
      keep.push_back(std::move(e));
  }
  st.held = std::move(keep);
  st.index.clear();
  for (auto& e : st.held)
    if (e.forward.id != 0)
      st.index.emplace(e.forward.id, &e);
  st.dirty = 0;
  auto number = ++st.sent;
  self->request(st.writer, caf::infinite, detail::write_atom::value, std::move(batch))
    .then(
      [self, number](detail::record_numbers& written) {
        auto& st = self->state;
        recycle(st, written.written);
        for (auto& [id, n] : written.numbered)
          if (auto it = st.index.find(id); id != 0 && it != st.index.end())
            it->second->forward.number = n;
        st.error = std::move(written.error);
        st.done = number;
        if (st.error)
          fail_flushes(self);
        answer_waiters(self);
        if (st.error)
          schedule_tick(self); // the writer kept the rest: ask it again
        else
          after_write(self);
      },
      [self, number](caf::error& e) {
        // The writer is gone (it never dies of a failed write): nothing more
        // can be written; say so to whoever waits.
        auto& st = self->state;
        st.error = make_error(error_code::store_failed, describe(e));
        st.done = number;
        answer_waiters(self);
      });
}

void touched(recorder_actor* self, held_entry& e) {
  if (!e.dirty) {
    e.dirty = true;
    ++self->state.dirty;
  }
}

// After facts were taken (one message's, or all the inbox held, so that a
// forward whose end is among them is never written open first): a write
// once a batch waits, else one at the next tick.
void write_when_due(recorder_actor* self) {
  auto& st = self->state;
  if (st.dirty >= st.batch)
    start_write(self);
  else if (st.dirty > 0)
    schedule_tick(self);
}

held_entry& entry_for(recorder_actor* self, std::uint64_t id) {
  auto& st = self->state;
  if (auto it = st.index.find(id); it != st.index.end())
    return *it->second;
  held_entry e;
  e.forward.id = id;
  e.forward.when_us = unix_now_us();
  if (!st.prelude.empty()) {
    e.forward.facts = std::move(st.prelude);
    st.prelude.clear();
  } else if (!st.spare_lists.empty()) {
    e.forward.facts = std::move(st.spare_lists.back());
    st.spare_lists.pop_back();
  }
  st.held.push_back(std::move(e));
  st.index.emplace(id, &st.held.back());
  return st.held.back();
}

void take(recorder_actor* self, held_entry& e, fact&& x, bool from_engine) {
  auto& f = e.forward;
  if (from_engine && vocabulary::ends_forward(x.name)) {
    f.state = x.name == "finished" ? outcome::ok : outcome::broke;
    if (auto* t = x.find("took_us"))
      f.took_us = t->integer_or(f.took_us);
  }
  f.facts.push_back(std::move(x));
  touched(self, e);
}

// Waits for everything received so far to be written.
caf::response_promise wait_for_writes(recorder_actor* self, bool closing) {
  auto& st = self->state;
  auto rp = self->make_response_promise();
  // A write in flight carries whatever a failed one left (the writer keeps
  // it): with nothing new since, it is the one to wait for. Waiting for one
  // more then would wait for a write nobody starts.
  bool writing = st.sent != st.done;
  auto target = writing && st.dirty == 0 ? st.sent
                                         : st.sent + (st.dirty > 0 || st.error ? 1 : 0);
  if (closing) {
    // One more write, whatever is held: the last batch marks the run ended.
    st.closing = true;
    target = st.sent + 1;
  }
  st.waiting.push_back(waiter{target, rp, closing});
  start_write(self);
  answer_waiters(self);
  return rp;
}

// Everything the inbox holds, in the order it came.
void drain(recorder_actor* self) {
  auto& st = self->state;
  st.inbox->take(st.taken);
  for (auto& item : st.taken) {
    if (item.forward != 0)
      take(self, entry_for(self, item.forward), std::move(item.x), true);
    else if (st.held.empty())
      st.prelude.push_back(std::move(item.x));
    else
      take(self, st.held.back(), std::move(item.x), false);
  }
  st.taken.clear();
  if (st.taken.capacity() > recorder_state::taken_room)
    st.taken = {}; // a burst's room is not kept
  write_when_due(self);
}

caf::behavior recording(recorder_actor* self, caf::actor writer, recorder_options options,
                        std::shared_ptr<detail::recorder_inbox> inbox) {
  auto& st = self->state;
  st.inbox = std::move(inbox);
  st.writer = std::move(writer);
  st.durable_within = options.durable_within;
  st.batch = std::max<std::size_t>(1, options.batch);
  return {
    [self](forward_fact& x) {
      take(self, entry_for(self, x.forward), std::move(x.fact), true);
      write_when_due(self);
    },
    [self](fact& x) {
      auto& st = self->state;
      if (st.held.empty())
        st.prelude.push_back(std::move(x));
      else
        take(self, st.held.back(), std::move(x), false);
      write_when_due(self);
    },
    [self](arrived_atom, bool full) {
      // Facts wait: take them when a batch of forwards does, or when the
      // durability bound says (the tick), not one message at a time.
      if (full) {
        drain(self);
        if (self->state.dirty > 0)
          start_write(self);
      } else {
        schedule_tick(self);
      }
    },
    [self](tick_atom) {
      self->state.tick_due = false;
      drain(self);
      start_write(self);
    },
    [self](flush_atom) {
      drain(self);
      return wait_for_writes(self, false);
    },
    [self](close_atom) {
      auto& st = self->state;
      {
        std::lock_guard guard{st.inbox->mtx};
        st.inbox->actor = nullptr; // nothing more is taken
      }
      drain(self);
      if (!st.prelude.empty()) {
        // Facts told with no forward at all are still kept, as a forward of
        // their own that never ran.
        held_entry e;
        e.forward.when_us = unix_now_us();
        e.forward.facts = std::move(st.prelude);
        st.prelude.clear();
        st.held.push_back(std::move(e));
        touched(self, st.held.back());
      }
      return wait_for_writes(self, true);
    },
  };
}

// Asks the recorder `a` for `msg` and waits for its answer: nothing, or its
// error (the recorder's own, error_code::store_failed, or CAF's).
[[nodiscard]] caf::expected<void> ask(caf::actor_system& sys, const caf::actor& a, caf::message msg) {
  caf::expected<void> done;
  caf::scoped_actor self{sys};
  // Under the deterministic scheduler the answer comes now (a write tried
  // again waits on the test clock's timer, fired here), or the request's
  // own timeout, an hour of the test clock, says none came.
  bool deterministic = detail::deterministic(sys);
  auto asked = self->request(a, deterministic ? caf::duration{std::chrono::seconds(3600)} : caf::infinite,
                             std::move(msg));
  detail::run_until_told(sys, *self);
  std::move(asked).receive([] {}, [&](caf::error& e) { done = std::move(e); });
  return done;
}

// Throws store_error when `s` holds forwards of `run` (existing_run::refuse).
void refuse_existing(const store& s, const std::string& run) {
  run_row row;
  try {
    row = run_summary(s, run);
  } catch (const no_run_error&) {
    return;
  }
  if (row.forwards == 0)
    return;
  std::string who;
  if (!row.executions.empty() && !row.executions.back().host.empty())
    who = ", the last by " + row.executions.back().host + " pid "
          + std::to_string(row.executions.back().pid);
  throw store_error("cannot record run '" + run + "': the store '" + s.path() + "' holds "
                      + std::to_string(row.forwards) + " forwards of it already ("
                      + std::to_string(row.execution_count()) + " execution"
                      + (row.execution_count() == 1 ? "" : "s") + who
                      + "), and the recorder refuses an existing run; give another run id, or "
                        "existing_run::continue_run to add an execution, or overwrite to clear it",
                    store_trouble::refused);
}

} // namespace

recorder::recorder(caf::actor_system& sys, store s, recorder_options options)
  : sys_(&sys), run_(options.run) {
  if (auto ok = check_run_id(options.run); !ok)
    throw std::invalid_argument("cannot record: " + describe(ok.error()));
  if (s.read_only())
    throw store_error("cannot record into '" + s.path() + "': it was opened read-only",
                      store_trouble::read_only);
  if (options.existing == existing_run::refuse)
    refuse_existing(s, options.run);
  auto writer = detail::spawn_record_writer(
    sys, std::move(s),
    {.run = options.run, .summarising = options.summarising,
     .overwrite = options.existing == existing_run::overwrite,
     .batch = options.batch, .params = options.params, .tags = options.tags});
  inbox_ = std::make_shared<detail::recorder_inbox>();
  inbox_->batch = std::max<std::size_t>(1, options.batch);
  actor_ = sys.spawn(recording, std::move(writer), std::move(options), inbox_);
  inbox_->actor = actor_;
}

recorder::operator watcher() const {
  return watcher::sink(
    [inbox = inbox_](std::uint64_t forward, const fact& x) { inbox->add(forward, x); });
}

recorder& recorder::operator=(recorder&& other) noexcept {
  if (this != &other) {
    close();
    sys_ = other.sys_;
    actor_ = std::move(other.actor_);
    inbox_ = std::move(other.inbox_);
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
    if (auto done = ask(*sys_, actor_, caf::make_message(close_atom::value)); !done)
      std::fprintf(stderr, "soma: the recorder of run '%s' could not write its last forwards: %s\n",
                   run_.c_str(), describe(done.error()).c_str());
  } catch (...) {
    std::fprintf(stderr, "soma: the recorder of run '%s' could not be closed\n", run_.c_str());
  }
  actor_ = nullptr;
}

void recorder::tell(fact x) const {
  if (vocabulary::is_engine_word(x.name))
    throw std::invalid_argument("a fact named '" + x.name + "' was told to the recorder of run '"
                                + run_ + "'; that is one of the engine's words: give your fact "
                                         "a name of its own");
  if (x.name.empty())
    throw std::invalid_argument("a fact with no name was told to the recorder of run '" + run_
                                + "'; every fact needs one");
  if (x.has("fact"))
    throw std::invalid_argument("'" + x.name + "' was told to the recorder of run '" + run_
                                + "' with a field named 'fact', which is where a fact's name is "
                                  "written; rename the field");
  inbox_->put(0, std::move(x));
}

void recorder::flush() const {
  if (auto done = ask(*sys_, actor_, caf::make_message(flush_atom::value)); !done)
    throw store_error(describe(done.error()));
}

} // namespace soma
