#include "soma/health/replay.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "soma/store/readings.hpp"
#include "soma/store/tails.hpp"
#include "soma/store/trials.hpp"

namespace soma::health {

namespace {

// Records keep whole seconds; floor, as judge's `at / 1'000'000` for a
// moment after 1970.
std::int64_t seconds_of_us(std::int64_t us) { return us / 1'000'000; }

// One machine's readings up to the window's end, oldest first, and how many
// of them are at or before the step.
struct machine_history {
  std::string id;
  std::vector<reading> all;
  std::size_t upto = 0;
};

// One run's forwards the window needs: the last the rules ask for at or
// before its first step and every one after, to its last; their fact blobs
// alongside (empty where none was read).
struct run_history {
  std::string run;
  std::int64_t first = 0;
  std::optional<std::int64_t> ended_us;
  std::vector<record> records;
  std::vector<std::vector<fact>> facts;
  std::size_t upto = 0; // records moved into the tail so far
  std::uint64_t stamp = 0;
  run_tail tail;        // while the run has no forward by the step
  bool present = false; // its tail is in the evidence
};

std::vector<machine_history> machines_of(const store& s, std::int64_t to_us) {
  std::vector<machine_history> out;
  readings_back(s, to_us, [&](const std::string& id, const reading&) {
    out.push_back({id, {}, 0});
    return false;
  });
  for (auto& m : out) {
    m.all = readings(s, m.id);
    std::erase_if(m.all, [&](const reading& r) { return r.when_us > to_us; });
  }
  return out;
}

// How many of a run's forwards to read back from the window's end so that
// `last` at or before its start are among them: from the rate of those read.
std::size_t enough(const run_tail& t, std::size_t last, std::int64_t from_s) {
  auto span = std::max<std::int64_t>(1, t.records.back().when_s() - t.records.front().when_s());
  auto behind = std::max<std::int64_t>(0, t.records.back().when_s() - from_s);
  auto rate = static_cast<double>(t.records.size()) / static_cast<double>(span);
  return last + static_cast<std::size_t>(rate * static_cast<double>(behind) * 1.25) + 16;
}

// Forwards at or before second `from_s`, the first of a run's tail on.
std::size_t before_of(const run_tail& t, std::int64_t from_s) {
  std::size_t n = 0;
  while (n < t.records.size() && t.records[n].when_s() <= from_s)
    ++n;
  return n;
}

run_history history_of(run_tail t, std::size_t last, std::size_t facts, std::int64_t from_s) {
  // Keep `last` at or before the first step, and all after.
  auto before = before_of(t, from_s);
  auto drop = before > last ? before - last : 0;
  run_history h;
  h.run = t.run;
  h.first = t.first;
  h.ended_us = t.ended_us;
  h.facts.resize(t.records.size() - drop);
  auto with_facts = t.records.size() - t.facts.size(); // the first record with its blob read
  if (facts > 0)
    for (auto i = std::max(drop, with_facts); i < t.records.size(); ++i)
      h.facts[i - drop] = std::move(t.facts[i - with_facts]);
  h.records.assign(std::make_move_iterator(t.records.begin() + static_cast<std::ptrdiff_t>(drop)),
                   std::make_move_iterator(t.records.end()));
  return h;
}

// A run's tail as of the window's end, read back until it holds what every
// step needs: the last `forwards` at or before the first step (or the whole
// run) and all after, with the fact blobs of every one of them a step's tail
// reads (those after the first step, and the last `facts` before it).
run_tail window_of(const store& s, run_tail got, std::size_t forwards, std::size_t facts,
                   std::int64_t from_s, std::int64_t to_s) {
  auto k = forwards; // what `got` was read with
  for (;;) {
    auto before = before_of(got, from_s);
    bool records = got.records.size() < k || before >= forwards; // the whole run, or enough
    bool blobs = facts == 0 || got.facts.size() >= got.records.size() - before + std::min(facts, before);
    if (records && blobs)
      return got;
    if (!records)
      k = std::max(2 * k, enough(got, forwards, from_s)); // more of it is in the window
    auto again = tails(s, {.last = k, .at = to_s, .facts = facts > 0 ? k : 0, .run = got.run});
    if (again.empty())
      return got;
    got = std::move(again.front());
  }
}

std::vector<run_history> runs_of(const store& s, const needs& need, std::int64_t from_s,
                                 std::int64_t to_s) {
  std::vector<run_history> out;
  if (need.forwards == 0)
    return out;
  // A tail reads the fact blobs of its last min(facts, forwards).
  auto facts = std::min(need.facts, need.forwards);
  for (auto& t : tails(s, {.last = need.forwards, .at = to_s, .facts = facts}))
    out.push_back(history_of(window_of(s, std::move(t), need.forwards, facts, from_s, to_s),
                             need.forwards, facts, from_s));
  return out;
}

// The evidence at each step, moved forward from the one before.
class stepper {
public:
  stepper(const store& s, const rulebook& book, const replay_options& o)
    : on_(book.enabled()), need_(book.needs()) {
    machines_ = machines_of(s, o.to_us);
    runs_ = runs_of(s, need_, seconds_of_us(o.from_us), seconds_of_us(o.to_us));
    if (need_.trials)
      for (auto& st : studies(s)) {
        auto& all = e.trials[st.study.name];
        all = soma::trials(s, st.study.name);
        trials_ += all.size();
      }
  }

  evidence e;
  std::vector<std::size_t> runs_moved; // indices into e.runs whose tails changed at this step
  bool readings_moved = false;

  [[nodiscard]] std::size_t trial_count() const noexcept { return trials_; }
  [[nodiscard]] const std::vector<const rulebook::entry*>& on() const noexcept { return on_; }

  // Moves the evidence to the moment `t`.
  void to(std::int64_t t) {
    e.at_us = t;
    e.reader_us = t;
    readings_moved = false;
    for (auto& m : machines_)
      readings_moved |= machine_to(m, t);
    e.newest_reading_us = 0;
    for (auto& [id, rs] : e.machines)
      e.newest_reading_us = std::max(e.newest_reading_us, rs.front().when_us);
    runs_to(seconds_of_us(t));
    e.now_us = e.newest_reading_us;
    if (need_.forwards > 0)
      for (auto& r : e.runs)
        if (!r.records.empty())
          e.now_us = std::max(e.now_us, r.records.back().when_us);
  }

private:
  // Whether the machine's readings at or before `t` changed; if so its
  // evidence is read back as judge reads it, newest first, as far as the
  // rules ask.
  bool machine_to(machine_history& m, std::int64_t t) {
    auto upto = m.upto;
    while (upto < m.all.size() && m.all[upto].when_us <= t)
      ++upto;
    if (upto == m.upto)
      return false;
    // What it held (all[m.upto - 1] back) is moved, not copied, into the
    // new walk, which begins with the readings new since.
    auto& mine = e.machines[m.id];
    auto old = std::move(mine);
    auto old_last = m.upto; // one past the newest of `old`
    m.upto = upto;
    mine.clear();
    mine.reserve(old.size() + (upto - old_last));
    for (auto k = upto; k-- > 0;) {
      bool in_old = k < old_last && old_last - k <= old.size();
      mine.push_back(in_old ? std::move(old[old_last - 1 - k]) : m.all[k]);
      if (mine.size() >= kept_per_machine)
        break;
      bool more = false;
      for (auto* x : on_)
        more = more || x->rule->more_readings(mine, x->settings);
      if (!more)
        break;
    }
    return true;
  }

  // Moves a run's tail forward to second `t_s`; whether it changed.
  bool run_to(run_history& h, std::int64_t t_s) {
    bool moved = false;
    auto facts = std::min(need_.facts, need_.forwards);
    auto& tail = e.runs[index_.at(h.run)];
    for (; h.upto < h.records.size() && h.records[h.upto].when_s() <= t_s; ++h.upto, moved = true) {
      tail.records.push_back(std::move(h.records[h.upto]));
      if (facts > 0)
        tail.facts.push_back(std::move(h.facts[h.upto]));
    }
    if (!moved)
      return false;
    // The last `forwards` records, the blobs of the last `facts` of them.
    auto keep = [](auto& v, std::size_t n) {
      if (v.size() > n)
        v.erase(v.begin(), v.end() - static_cast<std::ptrdiff_t>(n));
    };
    keep(tail.records, need_.forwards);
    keep(tail.facts, std::min(facts, tail.records.size()));
    h.stamp = ++stamps_;
    return true;
  }

  void runs_to(std::int64_t t_s) {
    runs_moved.clear();
    bool joined = false;
    for (auto& h : runs_)
      if (!h.present && h.first <= t_s) {
        h.tail.run = h.run;
        h.tail.first = h.first;
        h.tail.ended_us = h.ended_us;
        joined = true;
      }
    if (joined)
      rebuild(t_s);
    for (auto& h : runs_)
      if (h.present && run_to(h, t_s))
        runs_moved.push_back(index_.at(h.run));
    for (std::size_t k = 0; k < e.runs.size(); ++k)
      e.tail_stamps[k] = runs_[order_[k]].stamp;
  }

  // A run joins the evidence (it has a forward by now): the evidence's runs
  // in key order again, as tails() gives them.
  void rebuild(std::int64_t t_s) {
    std::vector<run_tail> runs;
    auto old = std::move(index_);
    order_.clear();
    index_.clear();
    for (std::size_t k = 0; k < runs_.size(); ++k) {
      auto& h = runs_[k];
      if (h.present)
        runs.push_back(std::move(e.runs[old.at(h.run)]));
      else if (h.first <= t_s) {
        h.present = true;
        h.stamp = ++stamps_;
        runs.push_back(std::move(h.tail));
      } else
        continue;
      index_[h.run] = runs.size() - 1;
      order_.push_back(k);
    }
    e.runs = std::move(runs);
    e.tail_stamps.assign(e.runs.size(), 0);
  }

  std::vector<const rulebook::entry*> on_;
  health::needs need_;
  std::vector<machine_history> machines_;
  std::vector<run_history> runs_;
  std::map<std::string, std::size_t, std::less<>> index_; // run -> e.runs
  std::vector<std::size_t> order_;                        // e.runs -> runs_
  std::uint64_t stamps_ = 0;
  std::size_t trials_ = 0;
};

// Each rule's opinions at the step, judged again only when what it
// changes with did (rule::changes).
class judging {
public:
  explicit judging(const std::vector<const rulebook::entry*>& on) : on_(on), held_(on.size()) {}

  // The opinions of every rule at the step `e` is at; `first` judges all.
  void step(stepper& st, bool first, std::vector<opinion>& out) {
    auto& e = st.e;
    bool wrote = st.readings_moved || !st.runs_moved.empty();
    for (std::size_t i = 0; i < on_.size(); ++i) {
      auto& x = *on_[i];
      auto& held = held_[i];
      switch (x.rule->changes(x.settings)) {
      case changes_with::readings:
        if (first || st.readings_moved)
          again(x, e, held.all);
        break;
      case changes_with::writes:
        if (first || wrote)
          again(x, e, held.all);
        break;
      case changes_with::its_run:
        by_run(x, st, first, held);
        break;
      default:
        again(x, e, held.all);
      }
      out.insert(out.end(), held.all.begin(), held.all.end());
      for (auto& [run, ops] : held.by_run)
        out.insert(out.end(), ops.begin(), ops.end());
    }
  }

private:
  struct opinions {
    std::vector<opinion> all;
    std::map<std::string, std::vector<opinion>, std::less<>> by_run;
  };

  static void again(const rulebook::entry& x, const evidence& e, std::vector<opinion>& out) {
    out.clear();
    x.rule->judge(e, x.settings, out);
  }

  // An its_run rule: each run whose tail moved judged alone; the others keep
  // their opinions, held against the step's now_us.
  void by_run(const rulebook::entry& x, stepper& st, bool first, opinions& held) {
    auto& e = st.e;
    one_.now_us = e.now_us;
    one_.newest_reading_us = e.newest_reading_us;
    one_.at_us = e.at_us;
    one_.reader_us = e.reader_us;
    auto alone = [&](std::size_t k) {
      one_.runs.resize(1);
      one_.tail_stamps.assign(1, e.tail_stamps[k]);
      std::swap(one_.runs[0], e.runs[k]);
      auto& ops = held.by_run[one_.runs[0].run];
      ops.clear();
      x.rule->judge(one_, x.settings, ops);
      std::swap(one_.runs[0], e.runs[k]);
    };
    if (first)
      for (std::size_t k = 0; k < e.runs.size(); ++k)
        alone(k);
    else
      for (auto k : st.runs_moved)
        alone(k);
    for (auto& [run, ops] : held.by_run)
      for (auto& op : ops)
        op.state = state_of(op.since_us, e.now_us, op.for_us);
  }

  std::vector<const rulebook::entry*> on_;
  std::vector<opinions> held_;
  evidence one_; // a run alone, for its_run rules
};

// Opens, moves and closes episodes from each step's opinions.
class episodes {
public:
  void step(std::int64_t t, const std::vector<opinion>& ops) {
    ++generation_;
    for (auto& op : ops) {
      auto key = op.rule + '\n' + op.subject;
      auto [it, fresh] = open_.try_emplace(std::move(key), out_.size());
      if (!fresh && out_[it->second].firing_us && op.state == status::pending) {
        // It fired and is pending again: its condition broke and began
        // again between two steps (a step longer than its gap), as judge
        // says at this one. The episode ends here, and a new one begins.
        out_[it->second].cleared_us = t;
        it->second = out_.size();
        fresh = true;
      }
      if (fresh)
        out_.push_back(opened(op, t));
      auto& ep = out_[it->second];
      seen_[it->second] = generation_;
      if (!ep.firing_us && op.state == status::firing) {
        ep.firing_us = t;
        ep.firing_value = op.value;
      }
      ep.last_value = op.value;
      ++ep.steps;
    }
    for (auto it = open_.begin(); it != open_.end();)
      if (seen_[it->second] != generation_) {
        out_[it->second].cleared_us = t;
        it = open_.erase(it);
      } else
        ++it;
  }

  [[nodiscard]] std::vector<episode> done() && { return std::move(out_); }

private:
  episode opened(const opinion& op, std::int64_t t) {
    episode ep;
    ep.rule = op.rule;
    ep.kind = op.kind;
    ep.subject = op.subject;
    ep.run = op.run;
    ep.measure = op.measure;
    ep.threshold = op.threshold;
    ep.threshold_is = op.threshold_is;
    ep.for_us = op.for_us;
    ep.since_us = op.since_us;
    ep.pending_us = t;
    ep.pending_value = op.value;
    seen_.push_back(0);
    return ep;
  }

  std::vector<episode> out_;
  std::vector<std::uint64_t> seen_; // the step each episode was last held
  std::map<std::string, std::size_t> open_;
  std::uint64_t generation_ = 0;
};

void check(const replay_options& o) {
  if (o.every_us <= 0)
    throw replay_error("a replay's step must be over 0 s (e.g. 1s, 500ms), not "
                       + std::to_string(o.every_us) + " us");
  if (o.from_us > o.to_us)
    throw replay_error("a replay's FROM (" + std::to_string(o.from_us) + " us) is after its TO ("
                       + std::to_string(o.to_us) + " us): give the earlier moment first");
  auto steps = (static_cast<double>(o.to_us) - static_cast<double>(o.from_us))
                 / static_cast<double>(o.every_us) + 1;
  if (steps > static_cast<double>(most_replay_steps))
    throw replay_error("a replay of " + std::to_string(static_cast<std::uint64_t>(steps))
                       + " steps is more than the " + std::to_string(most_replay_steps)
                       + " one replay takes: a shorter window or a longer step (--every)");
}

} // namespace

replayed replay(const store& s, const rulebook& book, const replay_options& o) {
  check(o);
  if (o.run) // says so when there is no such run, whatever the window
    (void) tails(s, {.last = 1, .run = o.run});
  stepper st{s, book, o};
  judging rules{st.on()};
  episodes found;
  replayed out;
  std::vector<opinion> ops;
  for (auto t = o.from_us; t <= o.to_us; t += o.every_us) {
    st.to(t);
    ops.clear();
    rules.step(st, out.steps == 0, ops);
    if (o.run)
      std::erase_if(ops, [&](const opinion& op) { return op.run != *o.run; });
    found.step(t, ops);
    out.last_us = t;
    ++out.steps;
    if (t > o.to_us - o.every_us)
      break; // the next would pass TO (or overflow)
  }
  out.episodes = std::move(found).done();
  std::stable_sort(out.episodes.begin(), out.episodes.end(),
                   [](const episode& a, const episode& b) { return a.pending_us < b.pending_us; });
  out.from_us = o.from_us;
  out.to_us = o.to_us;
  out.every_us = o.every_us;
  out.machines = st.e.machines.size();
  out.runs = st.e.runs.size();
  out.trials = st.trial_count();
  return out;
}

} // namespace soma::health
