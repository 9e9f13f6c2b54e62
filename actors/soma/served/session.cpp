#include "soma/served/session.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <deque>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include <caf/actor_system.hpp>
#include <caf/allowed_unsafe_message_type.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/to_string.hpp>

#include "soma/detail/record_writer.hpp"
#include "soma/detail/temporary.hpp"
#include "soma/detail/undecodable.hpp"
#include "soma/served/protocol.hpp"
#include "soma/served/questions.hpp"
#include "soma/store/backend.hpp"
#include "soma/store/cache.hpp"
#include "soma/store/check.hpp"
#include "soma/store/detail/environment.hpp"
#include "soma/store/detail/readings_at.hpp"
#include "soma/store/detail/trials_at.hpp"
#include "soma/store/detail/write_group.hpp"
#include "soma/store/keys.hpp"
#include "soma/store/readings.hpp"
#include "soma/store/trials.hpp"
#include "soma/wire/reading.hpp"
#include "soma/wire/record_write.hpp"
#include "soma/wire/served_store.hpp"
#include "soma/wire/trial.hpp"

namespace soma::served {

namespace {

// A compacted copy of the served store, in a directory of its own that goes
// with it; sent in parts of at most wire::snapshot_part_bytes.
struct copy {
  std::string dir;
  std::uint64_t txn = 0;
  std::uint64_t size = 0;
  int fd = -1;

  copy() = default;
  copy(const copy&) = delete;
  copy& operator=(const copy&) = delete;
  ~copy() {
    if (fd >= 0)
      ::close(fd);
    std::error_code ignored;
    std::filesystem::remove_all(dir, ignored);
  }
};

// The copy a session's client is fetching (soma copy): made for its first
// part, gone with its last.
struct copying {
  std::mutex lock;
  std::unique_ptr<copy> held;
};

// What a session hands a reader.
struct reader_job {
  store_op op;
  std::string payload;
  std::shared_ptr<copying> copy; // the session's, for store_op::copy
};

// What a session hands the group writer: a machine's reading, or a batch
// of a client recorder's forwards.
struct reading_job {
  reading r;
};
struct trial_job {
  store_op op; ///< trials_add, trial_end or trial_end_claim
  std::string payload;
};
struct record_job {
  std::uint64_t session = 0;
  std::uint64_t recorder = 0; ///< the client recorder's id (writer_options::once_for)
  detail::writer_options options;
  detail::record_batch batch;
};

} // namespace

} // namespace soma::served

namespace caf {

// Each stays in the server's process.
template <>
struct allowed_unsafe_message_type<soma::served::reader_job> : std::true_type {};
template <>
struct allowed_unsafe_message_type<soma::served::reading_job> : std::true_type {};
template <>
struct allowed_unsafe_message_type<soma::served::record_job> : std::true_type {};
template <>
struct allowed_unsafe_message_type<soma::served::trial_job> : std::true_type {};

} // namespace caf

namespace soma::served {

namespace {

using flush_atom = caf::atom_constant<caf::atom("flush")>;
using forget_atom = caf::atom_constant<caf::atom("forget")>;
using job_atom = caf::atom_constant<caf::atom("job")>;
using free_atom = caf::atom_constant<caf::atom("free")>;
using retry_atom = caf::atom_constant<caf::atom("retry")>;
using gone_atom = caf::atom_constant<caf::atom("gone")>;
using hold_atom = caf::atom_constant<caf::atom("hold")>;
using unhold_atom = caf::atom_constant<caf::atom("unhold")>;
using wake_atom = caf::atom_constant<caf::atom("wake")>;
using watch_atom = caf::atom_constant<caf::atom("watch")>;

// How often the group writer looks whether another writer moved the store
// while sessions hold claims (a trial added by a process on the server's
// host): one read transaction's begin, so a held claim sees such a trial
// within about this long.
constexpr auto watch_every = std::chrono::milliseconds(2);

// How often a claim that found no trial is asked again while its hold lasts.
constexpr auto claim_again_every = std::chrono::milliseconds(50);

// The most a claim is held: the client's call waits five seconds.
constexpr std::uint32_t claim_hold_cap_ms = 1000;

// A refusal as data: a soma error whose code is its kind, which the client
// answers (client.cpp, trouble_of).
caf::error refusal(const std::string& what, store_trouble kind) {
  return make_error(code_of(kind), what);
}

caf::error refusal(const store_error& e) { return as_error(e); }

// --- a copy of the whole store (soma copy), in parts ---

std::unique_ptr<copy> copy_of(const store& served) {
  auto* env = served.backend().local().get();
  auto out = std::make_unique<copy>();
  // Read before the copy begins: a commit during it makes the copy newer
  // than said, never older, so a reader at worst fetches again.
  out->txn = env->last_txn();
  try {
    out->dir = detail::make_temporary_directory("soma-serve-copy");
  } catch (const std::runtime_error& e) {
    throw store_error(std::string{"no directory for a copy of the store: "} + e.what());
  }
  env->copy_to(out->dir);
  auto file = out->dir + "/data.mdb";
  out->fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  struct stat st{};
  if (out->fd < 0 || ::fstat(out->fd, &st) != 0)
    throw store_error("cannot read the copy of the store in " + out->dir);
  out->size = static_cast<std::uint64_t>(st.st_size);
  return out;
}

wire::snapshot_part part_of(const copy& c, std::uint64_t offset) {
  if (offset > c.size)
    throw store_error("a copy of " + std::to_string(c.size) + " bytes has no part at "
                        + std::to_string(offset),
                      store_trouble::invalid);
  wire::snapshot_part p{c.txn, c.size, offset, {}};
  p.bytes.resize(std::min<std::uint64_t>(wire::snapshot_part_bytes, c.size - offset));
  std::size_t done = 0;
  while (done < p.bytes.size()) {
    auto n = ::pread(c.fd, p.bytes.data() + done, p.bytes.size() - done,
                     static_cast<off_t>(offset + done));
    if (n <= 0)
      throw store_error("cannot read the copy of the store in " + c.dir);
    done += static_cast<std::size_t>(n);
  }
  return p;
}

std::string copy_part(copying& c, const store& served, std::string_view payload) {
  auto offset = wire::decode_snapshot_ask(payload);
  std::lock_guard lock{c.lock};
  if (offset == 0 || !c.held)
    c.held = copy_of(served);
  auto part = part_of(*c.held, offset);
  if (part.offset + part.bytes.size() >= c.held->size)
    c.held.reset(); // all of it sent
  return wire::encode_snapshot_part(part);
}

// --- what a reader does ---

// A request of `op` whose bytes did not decode as its request: `invalid`.
store_error not_its_request(store_op op, const detail::undecodable& e) {
  return store_error("a request '" + std::string{info(op).name} + "' whose bytes are not its "
                       + std::string{info(op).request} + " (" + e.what()
                       + "); is the client a soma of this version?",
                     store_trouble::invalid);
}

// The answer to `job` from `served`, which blocks on its disk. Throws
// store_error; undecodable bytes are `invalid`.
std::string answer(const store& served, reader_job& job) {
  auto& b = served.backend();
  try {
    switch (job.op) {
      case store_op::copy: return copy_part(*job.copy, served, job.payload);
      case store_op::cache_get: {
        auto a = wire::decode_cache_ask(job.payload);
        return wire::encode_cache_answer(
          b.cache_get(a.key, detail::cache_identity{a.type, a.node, a.version}));
      }
      case store_op::cache_put: {
        auto k = wire::decode_cache_keep(job.payload);
        return wire::encode_cache_kept(b.cache_put(
          k.ask.key, detail::cache_identity{k.ask.type, k.ask.node, k.ask.version}, k.output,
          k.limit));
      }
      case store_op::claim: { // at once: the session asks again while the hold lasts
        auto a = wire::decode_claim_ask(job.payload);
        return wire::encode_claim_answer(b.claim_trial(a.study, a.claimant, {}));
      }
      case store_op::reclaim: {
        auto a = wire::decode_reclaim_ask(job.payload);
        return wire::encode_trial_numbers(b.reclaim(a.study, a.quiet_over_s));
      }
      default: return answer_question(b.ask(), job.op, job.payload);
    }
  } catch (const detail::undecodable& e) {
    throw not_its_request(job.op, e);
  }
}

// A reader: answers one job at a time, on a thread of its own (it blocks on
// the disk).
caf::behavior reader(caf::event_based_actor* self, store served) {
  self->set_default_handler(caf::drop);
  return {
    [served](job_atom, reader_job& job) -> caf::result<std::string> {
      try {
        return answer(served, job);
      } catch (const store_error& e) {
        return refusal(e);
      } catch (const std::exception& e) {
        return refusal(e.what(), store_trouble::failed);
      }
    },
  };
}

// The readers, each given the next job when it is free: a long question
// (a check, a copy) holds one reader, never the jobs queued behind it.
struct readers_state {
  std::vector<caf::actor> free;
  std::deque<std::pair<reader_job, caf::response_promise>> queued;
  static inline const char* name = "soma.served.readers";
};

void hand_out(caf::stateful_actor<readers_state>* self) {
  auto& st = self->state;
  while (!st.free.empty() && !st.queued.empty()) {
    auto r = st.free.back();
    st.free.pop_back();
    auto [job, rp] = std::move(st.queued.front());
    st.queued.pop_front();
    self->request(r, caf::infinite, job_atom::value, std::move(job))
      .then(
        [self, r, rp](std::string& answer) mutable {
          rp.deliver(std::move(answer));
          self->send(self, free_atom::value, r);
        },
        [self, r, rp](caf::error& e) mutable {
          rp.deliver(std::move(e));
          self->send(self, free_atom::value, r);
        });
  }
}

caf::behavior hand_to_readers(caf::stateful_actor<readers_state>* self, store served, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i)
    self->state.free.push_back(self->spawn<caf::detached + caf::linked>(reader, served));
  return {
    [self](job_atom, reader_job& job) -> caf::result<std::string> {
      auto rp = self->make_response_promise<std::string>();
      self->state.queued.emplace_back(std::move(job), rp);
      hand_out(self);
      return rp;
    },
    [self](free_atom, caf::actor& r) {
      self->state.free.push_back(std::move(r));
      hand_out(self);
    },
  };
}

// --- the group writer ---

// A client recorder's writer: the session it came in, and its id.
using run_key = std::pair<std::uint64_t, std::uint64_t>;

struct pending_batch {
  run_key key;
  detail::record_batch batch;
  caf::response_promise rp;
};

struct group_state {
  std::vector<reading> readings;
  std::vector<caf::response_promise> reading_waiting;
  std::vector<pending_batch> batches;
  /// Trials added and ended, each answering its client once committed.
  std::vector<std::unique_ptr<detail::group_part>> trial_parts;
  /// The sessions holding claims, by number: woken when trials were written.
  std::map<std::uint64_t, caf::actor> holding;
  bool watching = false;       ///< a watch tick is due (while sessions hold claims)
  std::uint64_t seen_txn = 0;  ///< the store's last transaction, as the watch or a commit saw it
  /// The runs of the client recorders of every open session.
  std::map<run_key, std::unique_ptr<detail::run_writing>> runs;
  /// Readings written per machine since it was last trimmed.
  std::unordered_map<std::string, std::size_t> since_trim;
  bool flush_due = false;
  bool flush_now = false; ///< the flush due was sent at once, not after the gap
  std::chrono::steady_clock::time_point last_commit{};
  static inline const char* name = "soma.served.group_writer";
};

using group_actor = caf::stateful_actor<group_state>;

// Makes a flush due: at once for work a client waits on before it can go
// on (a trial added or ended), else once `gap` has passed since the last
// commit (at once when it has). The flush message goes to the back of the
// mailbox, behind every write that came meanwhile: those are what the group
// holds. A flush sent earlier that finds nothing left to write does nothing.
void flush_due(group_actor* self, std::chrono::milliseconds gap, bool at_once = false) {
  auto& st = self->state;
  if (st.flush_due && (st.flush_now || !at_once))
    return;
  st.flush_due = true;
  auto next = st.last_commit + gap;
  auto now = std::chrono::steady_clock::now();
  st.flush_now = at_once || next <= now;
  if (st.flush_now)
    self->send(self, flush_atom::value);
  else
    self->delayed_send(self, next - now, flush_atom::value);
}

// Which of `readings` have their machine trimmed now: a machine is trimmed
// on its first reading here, then every trim_every_served. It keeps its
// newest kept_per_machine, and up to that many more between two trims.
std::vector<bool> trims(group_state& st, const std::vector<reading>& readings) {
  std::vector<bool> trim(readings.size());
  if (st.since_trim.size() > 1'000'000)
    st.since_trim.clear(); // machines forgotten meanwhile: trimmed again, once each
  for (std::size_t i = 0; i < readings.size(); ++i) {
    auto [it, first] = st.since_trim.try_emplace(readings[i].id, 0);
    trim[i] = first || ++it->second % trim_every_served == 0;
  }
  return trim;
}

// The part of a group that `job` writes, answering `rp` once the group is
// done. Throws store_error for what is refused before any write.
std::unique_ptr<detail::group_part> trial_part(detail::environment& env, trial_job& job,
                                               caf::response_promise rp) {
  // What answers the client once the group is done: the answer `encode`
  // makes of what the part gave, or the store's error.
  auto answering = [rp](auto encode) {
    return [rp, encode](auto got) mutable {
      if (got)
        rp.deliver(encode(*got));
      else
        rp.deliver(std::move(got.error()));
    };
  };
  try {
    switch (job.op) {
      case store_op::trials_add: {
        auto a = wire::decode_trials_add(job.payload);
        return detail::add_trials_part(env, std::move(a.study), std::move(a.trials),
                                       std::move(a.function),
                                       answering([](auto& n) { return wire::encode_trial_numbers(n); }));
      }
      case store_op::trial_end:
        return detail::end_trial_part(
          env, wire::decode_trial_end(job.payload),
          answering([](auto& ended) { return wire::encode_trial_ended(ended); }));
      case store_op::trial_end_claim:
        return detail::end_and_claim_part(
          env, wire::decode_trial_end(job.payload), answering([](auto& got) {
            return wire::encode_trial_ended_claimed(got.first, got.second);
          }));
      default:
        throw store_error("the group writer does no '" + std::string{info(job.op).name} + "'");
    }
  } catch (const detail::undecodable& e) {
    throw not_its_request(job.op, e);
  }
}

void wake_holders(group_actor* self) {
  for (auto& [number, session] : self->state.holding)
    self->send(session, wake_atom::value);
}

// One watch tick: the store moved by another writer's commit since the last
// look (another process, or one of the server's readers): the sessions
// holding claims look again. Ticks go on while any holds one.
void watch(group_actor* self, detail::environment& env) {
  auto& st = self->state;
  if (st.holding.empty()) {
    st.watching = false;
    return;
  }
  try {
    auto now = env.last_txn();
    if (now != st.seen_txn) {
      st.seen_txn = now;
      wake_holders(self);
    }
  } catch (const store_error&) {
    // The store could not be read now; the next tick looks again.
  }
  self->delayed_send(self, watch_every, watch_atom::value);
}

// Writes the group: every reading and one batch of each run that came,
// in one transaction (soma/store/detail/write_group.hpp), and answers each
// once that transaction committed. A run's second batch waits for the next.
void flush(group_actor* self, detail::environment& env, std::chrono::milliseconds gap) {
  auto& st = self->state;
  st.flush_due = false;
  auto readings = std::move(st.readings);
  auto reading_waiting = std::move(st.reading_waiting);
  st.readings.clear();
  st.reading_waiting.clear();
  std::vector<pending_batch> now, later;
  for (auto& b : st.batches) {
    bool taken = std::any_of(now.begin(), now.end(), [&](auto& x) { return x.key == b.key; });
    (taken ? later : now).push_back(std::move(b));
  }
  st.batches = std::move(later);
  auto trial_parts = std::move(st.trial_parts);
  st.trial_parts.clear();
  if (readings.empty() && now.empty() && trial_parts.empty())
    return; // written already, by a flush sent at once
  st.last_commit = std::chrono::steady_clock::now();
  auto trim = trims(st, readings);
  std::optional<caf::error> readings_failed;
  std::vector<std::unique_ptr<detail::group_part>> parts;
  if (!readings.empty())
    parts.push_back(detail::readings_part(env, readings, trim, [&](const store_error* e) {
      if (e)
        readings_failed = refusal(*e);
    }));
  for (auto& b : now) {
    auto answer = [rp = b.rp](detail::record_numbers n) mutable {
      rp.deliver(detail::encode_record_numbers(n));
    };
    if (auto p = st.runs.at(b.key)->part(b.batch, answer))
      parts.push_back(std::move(p));
    else
      answer(st.runs.at(b.key)->write(b.batch));
  }
  // The group's own transaction, so that the watch wakes no one for it but
  // still sees any commit after it.
  std::optional<std::uint64_t> own;
  if (!st.holding.empty())
    parts.push_back(detail::noting_transaction(own));
  std::vector<detail::group_part*> each;
  for (auto& p : parts)
    each.push_back(p.get());
  for (auto& p : trial_parts)
    each.push_back(p.get());
  detail::write_group(env, each);
  if (!st.holding.empty()) {
    if (!trial_parts.empty())
      wake_holders(self);
    if (own && *own == st.seen_txn + 1) // no other commit came before it unseen
      st.seen_txn = *own;
  }
  for (auto& rp : reading_waiting)
    if (readings_failed)
      rp.deliver(*readings_failed);
    else
      rp.deliver(std::string{});
  if (!st.batches.empty())
    flush_due(self, gap);
}

// Writes what arrived while it wrote the last group in one transaction:
// readings and batches at most one commit every `gap` (a write that finds
// the writer idle for longer is written at once; a recorder goes on while
// its batch waits), a trial at once (its claimant waits for the answer).
// Each is answered once the commit that holds it returned.
caf::behavior commit_groups(group_actor* self, store served, std::chrono::milliseconds gap,
                            std::chrono::milliseconds forget_every) {
  self->delayed_send(self, forget_every, forget_atom::value);
  auto env = served.backend().local();
  return {
    [self, gap](reading_job& job) -> caf::result<std::string> {
      auto& st = self->state;
      st.readings.push_back(std::move(job.r));
      st.reading_waiting.push_back(self->make_response_promise<std::string>());
      flush_due(self, gap);
      return st.reading_waiting.back();
    },
    [self, gap, served](record_job& job) -> caf::result<std::string> {
      auto& st = self->state;
      run_key key{job.session, job.recorder};
      if (st.runs.count(key) == 0) {
        job.options.once_for = job.recorder;
        try {
          st.runs.emplace(key, std::make_unique<detail::run_writing>(served, job.options,
                                                                     job.recorder));
        } catch (const store_error& e) {
          return refusal(e);
        }
      }
      st.batches.push_back({key, std::move(job.batch), self->make_response_promise<std::string>()});
      flush_due(self, gap);
      return st.batches.back().rp;
    },
    [self, env, gap](trial_job& job) -> caf::result<std::string> {
      auto rp = self->make_response_promise<std::string>();
      try {
        self->state.trial_parts.push_back(trial_part(*env, job, rp));
      } catch (const store_error& e) {
        rp.deliver(refusal(e)); // the promise holds the request now
        return rp;
      }
      flush_due(self, gap, true);
      return rp;
    },
    [self, env, gap](flush_atom) { flush(self, *env, gap); },
    [self, env](hold_atom, std::uint64_t session, caf::actor& who) {
      auto& st = self->state;
      st.holding[session] = std::move(who);
      if (!st.watching) {
        st.watching = true;
        try {
          st.seen_txn = env->last_txn();
        } catch (const store_error&) {
        }
        self->delayed_send(self, watch_every, watch_atom::value);
      }
    },
    [self, env](watch_atom) { watch(self, *env); },
    [self](unhold_atom, std::uint64_t session) { self->state.holding.erase(session); },
    [self, env, gap](gone_atom, std::uint64_t session) {
      // The session's client went: what it sent is written first, then a
      // run it left open is marked so.
      auto& st = self->state;
      auto of_it = [&] {
        return std::any_of(st.batches.begin(), st.batches.end(),
                           [&](auto& b) { return b.key.first == session; });
      };
      while (of_it())
        flush(self, *env, gap);
      st.holding.erase(session);
      auto& runs = st.runs;
      auto i = runs.lower_bound(run_key{session, 0});
      while (i != runs.end() && i->first.first == session) {
        i->second->dropped();
        i = runs.erase(i);
      }
    },
    [self, env, forget_every](forget_atom) {
      try {
        detail::forget_stale_machines(*env);
      } catch (const store_error&) {
        // The store could not be written now; the next tick tries again.
      }
      self->delayed_send(self, forget_every, forget_atom::value);
    },
  };
}

// --- a session ---

// A claim waiting for a trial to be added.
struct held_claim_state {
  std::string payload;
  caf::response_promise rp;
  std::chrono::steady_clock::time_point until;
  bool asking = false;     ///< a reader has it now
  bool again = false;      ///< woken while a reader had it: ask again at once
  std::uint64_t round = 0; ///< the try a retry timer is for; older timers are stale
};

// A check of the whole store, walked on a thread of its own (one read
// transaction, so that what it compares is one moment's), asked how far it
// is by the session's client, and stopped when the session ends.
struct check_job {
  std::atomic<std::uint64_t> entries{0}, total{0};
  std::atomic<bool> stop{false}, done{false};
  std::mutex lock; // guards what follows once done
  check_report report;
  caf::error failed;
};

// The session's check, stopped when the session goes (with its state).
struct check_holder {
  std::shared_ptr<check_job> job;
  check_holder() = default;
  check_holder(const check_holder&) = delete;
  check_holder& operator=(const check_holder&) = delete;
  ~check_holder() {
    if (job)
      job->stop = true;
  }
};

struct session_state {
  std::shared_ptr<service> svc;
  check_holder check;
  std::map<std::uint64_t, held_claim_state> claims;
  std::uint64_t last_claim = 0;
  bool read_only = false;
  std::uint64_t number = 0; ///< the session's, as its log lines say it
  std::shared_ptr<copying> copy = std::make_shared<copying>();
  static inline const char* name = "soma.served.session";
};

using session_actor = caf::stateful_actor<session_state>;

// Hands the batch in `payload` to the group writer, which writes it in the
// run of the client recorder that sent it and answers the client itself
// with the batch's numbers.
caf::result<std::string> write_records(session_actor* self, const std::string& payload) {
  auto w = detail::decode_record_write(payload);
  if (auto ok = check_run_id(w.options.run); !ok)
    return refusal("cannot record: " + describe(ok.error()), store_trouble::invalid);
  self->delegate(self->state.svc->group_writer(),
                 record_job{self->state.number, w.recorder, std::move(w.options),
                            detail::record_batch{std::move(w.forwards), w.closing}});
  return caf::delegated<std::string>{};
}

// The group writer is told when this session holds claims, and when it
// holds none any more: it wakes the sessions holding claims when trials
// were added or ended.
void holding_changed(session_actor* self, bool before) {
  auto& st = self->state;
  bool now = !st.claims.empty();
  if (now == before)
    return;
  if (now)
    self->send(st.svc->group_writer(), hold_atom::value, st.number,
               caf::actor_cast<caf::actor>(self));
  else
    self->send(st.svc->group_writer(), unhold_atom::value, st.number);
}

// Ends held claim `it` with `answer` (a trial, none, or an error).
template <class Answer>
void end_claim(session_actor* self, std::map<std::uint64_t, held_claim_state>::iterator it,
               Answer&& answer) {
  it->second.rp.deliver(std::forward<Answer>(answer));
  self->state.claims.erase(it);
  holding_changed(self, true);
}

// A claim held up to its wait (at most claim_hold_cap_ms): asked of a
// reader at once, again at once when the group writer wakes the session
// (trials were added or ended), and every claim_again_every meanwhile (for
// trials that came another way: a reclaim, another process on the store's
// host) while it finds no trial and the hold lasts. Between tries it waits
// in the session's state, holding no reader; one try at a time, so that a
// trial is never claimed for an answer nobody receives.
void claim(session_actor* self, std::uint64_t id) {
  auto& held = self->state.claims.at(id);
  held.asking = true;
  self->request(self->state.svc->readers(), caf::infinite, job_atom::value,
                reader_job{store_op::claim, held.payload, nullptr})
    .then(
      [self, id](std::string& answer) {
        auto it = self->state.claims.find(id);
        if (it == self->state.claims.end())
          return;
        auto& h = it->second;
        h.asking = false;
        bool none = false;
        try {
          none = !wire::decode_claim_answer(answer).has_value();
        } catch (const detail::undecodable&) {
        }
        auto now = std::chrono::steady_clock::now();
        if (!none)
          return end_claim(self, it, std::move(answer));
        if (h.again && now < h.until) { // woken meanwhile: a trial may have come since
          h.again = false;
          return claim(self, id);
        }
        if (now + claim_again_every > h.until)
          return end_claim(self, it, std::move(answer));
        self->delayed_send(self, claim_again_every, retry_atom::value, id, ++h.round);
      },
      [self, id](caf::error& e) {
        auto it = self->state.claims.find(id);
        if (it != self->state.claims.end())
          end_claim(self, it, std::move(e));
      });
}

caf::result<std::string> held_claim(session_actor* self, std::string& payload) {
  std::uint32_t wait_ms = 0;
  try {
    wait_ms = std::min(wire::decode_claim_ask(payload).wait_ms, claim_hold_cap_ms);
  } catch (const detail::undecodable& e) {
    return refusal(std::string{"a claim whose bytes are no ClaimAsk ("} + e.what() + ")",
                   store_trouble::invalid);
  }
  auto& st = self->state;
  auto id = ++st.last_claim;
  auto rp = self->make_response_promise<std::string>();
  bool before = !st.claims.empty();
  held_claim_state held;
  held.payload = std::move(payload);
  held.rp = rp;
  held.until = std::chrono::steady_clock::now() + std::chrono::milliseconds(wait_ms);
  st.claims.emplace(id, std::move(held));
  holding_changed(self, before);
  claim(self, id);
  return rp;
}

caf::result<std::string> reading_to_write(session_actor* self, const std::string& payload) {
  auto& svc = *self->state.svc;
  reading r;
  try {
    r = detail::decode_reading(payload, "a reading sent to " + svc.served().path());
    detail::check_reading_id(r);
  } catch (const store_error& e) {
    return refusal(e);
  }
  // The writer answers the client itself: no hop back through the session.
  self->delegate(svc.group_writer(), reading_job{std::move(r)});
  return caf::delegated<std::string>{};
}

// The answer of the next free reader to `job`, which it sends the client
// itself: no hop back through the session.
caf::result<std::string> to_readers(session_actor* self, reader_job job) {
  self->delegate(self->state.svc->readers(), job_atom::value, std::move(job));
  return caf::delegated<std::string>{};
}

// ask.check, one step: begins the session's check, or says how far it is,
// or gives its report once it is done (and forgets it: the next asks anew).
// Each step answers at once, so a check of any length is a series of short
// calls, and a client that goes stops it.
caf::result<std::string> check_step(session_actor* self) {
  auto& job = self->state.check.job;
  if (!job) {
    job = std::make_shared<check_job>();
    // It holds the store (so its environment outlives the walk) and says
    // nothing: the session it would speak for may be gone.
    std::thread([job, served = self->state.svc->served()] {
      try {
        auto report = soma::check(served, [&job](std::size_t n, std::size_t total) {
          job->entries = n;
          job->total = total;
          return !job->stop.load();
        });
        std::lock_guard hold{job->lock};
        job->report = std::move(report);
      } catch (const store_error& e) {
        std::lock_guard hold{job->lock};
        job->failed = as_error(e);
      }
      job->done = true;
    }).detach();
  }
  if (!job->done) {
    check_report so_far;
    so_far.entries = job->entries;
    return encode_check_step(so_far, false, job->total);
  }
  auto finished = std::move(job);
  job.reset();
  std::lock_guard hold{finished->lock};
  if (finished->failed)
    return std::move(finished->failed);
  return encode_check_step(finished->report, true, finished->total);
}

// The one dispatch of the server: by the table's row of the operation.
caf::result<std::string> serve(session_actor* self, std::uint8_t wire, std::string& payload) {
  auto& st = self->state;
  auto op = op_of(wire);
  if (!op)
    return refusal("this soma-node knows no store operation numbered " + std::to_string(wire)
                     + " (store protocol 3 has " + std::to_string(store_ops.size())
                     + "); is the client a newer soma?",
                   store_trouble::invalid);
  auto& row = info(*op);
  st.svc->count_op();
  if (row.writes && st.read_only)
    return refusal("the served store " + st.svc->served().path() + " refuses '"
                     + std::string{row.name}
                     + "', a write, in this session: it was opened read-only; open the store "
                       "writable to write",
                   store_trouble::read_only);
  switch (row.by) {
    case done_by::group_writer:
      if (*op == store_op::reading)
        return reading_to_write(self, payload);
      if (*op != store_op::records) { // a trial added or ended
        self->delegate(st.svc->group_writer(), trial_job{*op, std::move(payload)});
        return caf::delegated<std::string>{};
      }
      try {
        return write_records(self, payload);
      } catch (const std::exception& e) {
        return refusal(std::string{"a batch of records that cannot be read: "} + e.what(),
                       store_trouble::invalid);
      }
    case done_by::reader:
      if (*op == store_op::claim)
        return held_claim(self, payload);
      if (*op == store_op::ask_check)
        return check_step(self);
      return to_readers(self, reader_job{*op, std::move(payload),
                                         *op == store_op::copy ? st.copy : nullptr});
  }
  return refusal("no way to do '" + std::string{row.name} + "'", store_trouble::failed);
}

caf::behavior session(session_actor* self, std::shared_ptr<service> svc, caf::actor client,
                      bool read_only, std::uint64_t number, session_log log,
                      std::function<void()> closed) {
  self->state.svc = svc;
  self->state.read_only = read_only;
  self->state.number = number;
  self->set_default_handler(caf::drop);
  self->monitor(client);
  // The client went: the session ends normally, whatever the client's
  // reason, so that the front it is linked to lives on.
  auto why = std::make_shared<std::string>("the worker stops");
  self->set_down_handler([self, why](caf::down_msg& dm) {
    *why = "its client went: " + caf::to_string(dm.reason);
    self->quit();
  });
  self->attach_functor([svc, log, number, why, closed](const caf::error&) {
    svc->session_closed();
    caf::anon_send(svc->group_writer(), gone_atom::value, number);
    log("store session " + std::to_string(number) + " closed (" + *why + ")");
    if (closed)
      closed();
  });
  return {
    [self](store_atom, std::uint8_t op, std::string& payload) { return serve(self, op, payload); },
    [self](retry_atom, std::uint64_t id, std::uint64_t round) {
      auto it = self->state.claims.find(id);
      if (it != self->state.claims.end() && !it->second.asking && it->second.round == round)
        claim(self, id);
    },
    [self](wake_atom) {
      for (auto& [id, held] : self->state.claims)
        if (held.asking) {
          held.again = true;
        } else {
          ++held.round; // its timer is stale now
          claim(self, id);
        }
    },
  };
}

} // namespace

service::service(caf::actor_system& sys, store served, service_limits limits,
                 std::atomic<std::uint64_t>& ops)
  : served_(std::move(served)), limits_(limits), ops_(ops) {
  group_writer_ = sys.spawn<caf::detached>(commit_groups, served_, limits_.commit_gap,
                                           limits_.forget_every);
  readers_ = sys.spawn(hand_to_readers, served_, std::max<std::size_t>(1, limits_.readers));
}

service::~service() {
  caf::anon_send_exit(group_writer_, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(readers_, caf::exit_reason::user_shutdown);
}

bool service::session_opened() noexcept {
  auto n = open_.load();
  while (n < limits_.sessions)
    if (open_.compare_exchange_weak(n, n + 1))
      return true;
  return false;
}

void service::session_closed() noexcept { open_.fetch_sub(1); }

caf::actor spawn_session(caf::actor_system& sys, std::shared_ptr<service> svc, caf::actor client,
                         bool read_only, std::uint64_t number, session_log log,
                         std::function<void()> closed) {
  return sys.spawn(session, std::move(svc), std::move(client), read_only, number, std::move(log),
                   std::move(closed));
}

} // namespace soma::served
