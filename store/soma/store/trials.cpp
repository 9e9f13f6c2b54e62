#include "soma/store/trials.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <functional>
#include <limits>
#include <memory>
#include <thread>

#include "soma/detail/seal.hpp"
#include "soma/detail/undecodable.hpp"
#include "soma/store/backend.hpp"
#include "soma/store/detail/cursor.hpp"
#include "soma/store/detail/environment.hpp"
#include "soma/store/detail/local_answers.hpp"
#include "soma/store/detail/readings_at.hpp"
#include "soma/store/detail/trial_runs.hpp"
#include "soma/store/detail/trials_at.hpp"
#include "soma/store/detail/utc.hpp"
#include "soma/store/detail/write_group.hpp"
#include "soma/store/keys.hpp"
#include "soma/store/readings.hpp"
#include "soma/wire/trial.hpp"
#include "soma/store/detail/key_bytes.hpp"

namespace soma {

namespace {

using detail::db;
using dbi_of = std::function<MDB_dbi(db)>;

// The layout of the trials database (docs/formats.md):
//   s/<study>                the study
//   t/<study>/<BE64 n>       trial n
//   w/<study>/<BE64 n>       trial n waits (empty payload): claims take the first
std::string study_key(std::string_view study) { return "s/" + std::string{study}; }
std::string trials_prefix(std::string_view study) { return "t/" + std::string{study} + "/"; }
std::string waiting_prefix(std::string_view study) { return "w/" + std::string{study} + "/"; }
std::string trial_key(std::string_view study, std::uint64_t n) {
  return trials_prefix(study) + detail::be64(n);
}
std::string waiting_key(std::string_view study, std::uint64_t n) {
  return waiting_prefix(study) + detail::be64(n);
}

std::int64_t now_us() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
           std::chrono::system_clock::now().time_since_epoch())
    .count();
}

// Unix microseconds as UTC to the second, for messages.
using detail::utc;

void check_study(std::string_view study) {
  if (auto ok = check_study_name(study); !ok)
    throw store_error(describe(ok.error()), store_trouble::invalid);
}

template <class T, class Decode>
T unsealed(const detail::environment& env, std::string_view key, std::string_view bytes,
           detail::sealed_kind kind, const char* what, Decode decode) {
  std::string_view payload;
  switch (detail::unseal(key, bytes, kind, payload)) {
    case detail::seal_state::ok: break;
    case detail::seal_state::newer:
      throw store_error(std::string{what} + " at '" + detail::printable_key(key) + "' in the store '"
                        + env.path() + "' was written by a newer soma, which this one cannot read");
    default:
      throw store_error(std::string{what} + " at '" + detail::printable_key(key) + "' in the store '"
                        + env.path() + "' is damaged: its checksum does not match its bytes "
                        "(`soma check --store " + env.path() + "` lists every damaged entry)",
                        store_trouble::damaged);
  }
  try {
    return decode(payload);
  } catch (const detail::undecodable& e) {
    throw store_error(std::string{what} + " at '" + detail::printable_key(key) + "' in the store '"
                      + env.path() + "' is damaged (" + e.what() + ")", store_trouble::damaged);
  }
}

trial_row decode_trial(const detail::environment& env, std::string_view key, std::string_view bytes) {
  return unsealed<trial_row>(env, key, bytes, detail::sealed_kind::trial, "the trial",
                             wire::decode_trial);
}

std::optional<study_row> get_study(const detail::environment& env, MDB_txn* txn, MDB_dbi d,
                                   std::string_view study) {
  std::string_view bytes;
  auto key = study_key(study);
  if (d == 0 || !env.get(txn, d, key, bytes))
    return std::nullopt;
  return unsealed<study_row>(env, key, bytes, detail::sealed_kind::study, "the study",
                             wire::decode_study);
}

// The names of every study, for a message saying which there are.
std::string study_names(const detail::environment& env, MDB_txn* txn, MDB_dbi d) {
  std::string names;
  detail::cursor c{env, txn, d};
  for (bool ok = c.move(MDB_SET_RANGE, "s/"); ok && c.key().starts_with("s/"); ok = c.move(MDB_NEXT))
    names += (names.empty() ? "'" : ", '") + std::string{c.key().substr(2)} + "'";
  return names;
}

[[noreturn]] void no_study(const detail::environment& env, MDB_txn* txn, MDB_dbi d,
                           std::string_view study) {
  auto names = study_names(env, txn, d);
  throw no_study_error("the store '" + env.path() + "' has no study named '" + std::string{study}
                       + "'; "
                       + (names.empty() ? std::string{"it has none yet (soma::add_trials makes one)"}
                                        : "it has " + names)
                       + " (`soma trials` lists them)");
}

void put_trial(const detail::environment& env, MDB_txn* txn, MDB_dbi d, std::string_view study,
               const trial_row& t) {
  auto key = trial_key(study, t.number);
  env.put(txn, d, key, detail::sealed(key, detail::sealed_kind::trial, wire::encode_trial(t)));
}

void put_waiting(const detail::environment& env, MDB_txn* txn, MDB_dbi d, std::string_view study,
                 std::uint64_t n) {
  auto key = waiting_key(study, n);
  env.put(txn, d, key, detail::sealed(key, detail::sealed_kind::waiting, {}));
}

// Calls f(key, trial) for every trial of `study`, by number.
void each_trial(const detail::environment& env, MDB_txn* txn, MDB_dbi d, std::string_view study,
                const std::function<void(std::string_view, trial_row&&)>& f) {
  auto prefix = trials_prefix(study);
  detail::cursor c{env, txn, d};
  for (bool ok = c.move(MDB_SET_RANGE, prefix); ok && c.key().starts_with(prefix);
       ok = c.move(MDB_NEXT))
    f(c.key(), decode_trial(env, c.key(), c.value()));
}

// Ends `t`'s current attempt without a result and puts it back in line:
// the attempt stays among its abandoned ones, saying `why`.
void hand_back(const detail::environment& env, MDB_txn* txn, MDB_dbi d, std::string_view study,
               trial_row& t, std::int64_t now, std::string why) {
  t.abandoned.push_back({t.attempt, t.claimant, t.claimed_us, t.run, now, std::move(why)});
  t.state = trial_state::waiting;
  t.claimant.clear();
  t.claimed_us = 0;
  t.run.clear();
  put_trial(env, txn, d, study, t);
  put_waiting(env, txn, d, study, t.number);
}

// Claims the first waiting trial of `study` for `claimant` in `txn`; none
// when nothing waits.
std::optional<trial_row> claim_in(const detail::environment& env, MDB_txn* txn, MDB_dbi d,
                                  std::string_view study, std::string_view claimant) {
  auto prefix = waiting_prefix(study);
  std::uint64_t n = 0;
  {
    detail::cursor c{env, txn, d};
    if (!c.move(MDB_SET_RANGE, prefix) || !c.key().starts_with(prefix))
      return std::nullopt;
    n = detail::from_be64(c.key().substr(prefix.size()));
    c.del();
  }
  auto key = trial_key(study, n);
  std::string_view bytes;
  if (!env.get(txn, d, key, bytes))
    env.damaged("trial " + std::to_string(n) + " of study '" + std::string{study}
                + "' is waiting in line but is not there");
  auto t = decode_trial(env, key, bytes);
  t.state = trial_state::claimed;
  t.attempt += 1;
  t.claimant = claimant;
  t.claimed_us = now_us();
  t.run = trial_run(study, t.number, t.attempt);
  put_trial(env, txn, d, study, t);
  return t;
}

std::string seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", s);
  return buf;
}

} // namespace

std::optional<detail::study_trial> detail::trial_of_run_in(const environment& env, MDB_txn* txn,
                                                          MDB_dbi trials, std::string_view run) {
  if (trials == 0)
    return std::nullopt;
  // `<study>.<n>` or `<study>.<n>.<attempt>`: try the last dot, then the one
  // before it (a study's name may hold dots itself).
  auto number_after = [](std::string_view digits) -> std::optional<std::uint64_t> {
    std::uint64_t n = 0;
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
    if (digits.empty() || ec != std::errc{} || end != digits.data() + digits.size())
      return std::nullopt;
    return n;
  };
  auto try_at = [&](std::size_t dot) -> std::optional<study_trial> {
    auto study = run.substr(0, dot);
    auto rest = run.substr(dot + 1);
    auto n = number_after(rest.substr(0, rest.find('.')));
    if (!n || !check_study_name(study))
      return std::nullopt;
    std::string_view bytes;
    auto key = trial_key(study, *n);
    if (!env.get(txn, trials, key, bytes))
      return std::nullopt;
    try {
      auto t = decode_trial(env, key, bytes);
      bool gave = t.run == run || std::any_of(t.abandoned.begin(), t.abandoned.end(),
                                              [&](const attempt_row& a) { return a.run == run; });
      if (gave)
        return study_trial{std::string{study}, std::move(t)};
    } catch (const store_error&) {
    }
    return std::nullopt;
  };
  auto last = run.rfind('.');
  if (last == std::string_view::npos || last == 0)
    return std::nullopt;
  if (auto t = try_at(last))
    return t;
  auto before = run.rfind('.', last - 1);
  if (before != std::string_view::npos && before > 0)
    return try_at(before);
  return std::nullopt;
}

caf::expected<void> check_study_name(std::string_view name) {
  auto invalid = [](std::string why) { return make_error(error_code::invalid, std::move(why)); };
  auto shown = "'" + std::string{name.substr(0, 64)} + (name.size() > 64 ? "...'" : "'");
  if (name.empty())
    return invalid("a study needs a name; it is empty");
  if (name.size() > max_study_name)
    return invalid("the study name " + shown + " is " + std::to_string(name.size())
                   + " bytes; a study name is at most " + std::to_string(max_study_name));
  for (unsigned char c : name)
    if (c == '/' || c == '.' || c < 0x20 || c == 0x7f)
      return invalid("the study name " + shown
                     + " holds a '/', a '.' or a control character; a study name has none (its "
                       "trials' runs are <study>.<n>)");
  return {};
}

// ---- the local side ----

namespace {

// What add_trials_at writes, in `txn`: the trials' numbers.
std::vector<std::uint64_t> add_in(detail::environment& env, MDB_txn* txn, const dbi_of& dbi,
                                  std::string_view study, const std::vector<values>& trials,
                                  std::string_view function) {
  std::vector<std::uint64_t> numbers;
  auto d = dbi(db::trials);
  auto now = now_us();
  auto s = get_study(env, txn, d, study).value_or(study_row{std::string{study}, now, 0, std::string{function}});
  for (auto& params : trials) {
    trial_row t;
    t.number = s.trials++;
    t.params = params;
    t.added_us = now;
    put_trial(env, txn, d, study, t);
    put_waiting(env, txn, d, study, t.number);
    numbers.push_back(t.number);
  }
  auto key = study_key(study);
  env.put(txn, d, key, detail::sealed(key, detail::sealed_kind::study, wire::encode_study(s)));
  return numbers;
}

} // namespace

std::vector<std::uint64_t> detail::add_trials_at(environment& env, std::string_view study,
                                                 const std::vector<values>& trials,
                                                 std::string_view function) {
  check_study(study);
  std::vector<std::uint64_t> numbers;
  env.write([&](MDB_txn* txn, const dbi_of& dbi) {
    numbers = add_in(env, txn, dbi, study, trials, function); // replayed when the map grows
  });
  return numbers;
}

std::optional<trial_row> detail::claim_trial_at(environment& env, std::string_view study,
                                                std::string_view claimant,
                                                std::chrono::milliseconds wait) {
  check_study(study);
  if (claimant.empty())
    throw store_error("a claim needs the claimant's machine id (hostname-pid)",
                      store_trouble::invalid);
  auto deadline = std::chrono::steady_clock::now() + wait;
  auto prefix = waiting_prefix(study);
  for (;;) {
    auto seen = env.last_txn();
    // Looked at in a read transaction first: claimants with nothing to take
    // never queue for the write lock.
    bool waits = false;
    env.read([&](MDB_txn* txn, const dbi_of& dbi) {
      auto d = dbi(db::trials);
      if (!get_study(env, txn, d, study))
        no_study(env, txn, d, study);
      cursor c{env, txn, d};
      waits = c.move(MDB_SET_RANGE, prefix) && c.key().starts_with(prefix);
    });
    if (waits) {
      std::optional<trial_row> got;
      env.write([&](MDB_txn* txn, const dbi_of& dbi) {
        got = claim_in(env, txn, dbi(db::trials), study, claimant); // none: another took it first
      });
      if (got)
        return got;
      continue; // taken by another: look again at once
    }
    if (std::chrono::steady_clock::now() >= deadline)
      return std::nullopt;
    // Nothing waits: look again once the store moved (any process's
    // commit), polling its last transaction, which costs no transaction.
    while (env.last_txn() == seen && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

namespace {

// Ends attempt `attempt` of trial `number` in `txn`; an error_code::refused
// error saying why not, when it was not.
[[nodiscard]] caf::expected<void> end_in(const detail::environment& env, MDB_txn* txn,
                                         MDB_dbi d, std::string_view study, std::uint64_t number,
                                         std::uint32_t attempt, std::string_view claimant,
                                         trial_state state, const values& result,
                                         const std::string& error) {
  auto refused = [](std::string why) { return make_error(error_code::refused, std::move(why)); };
  auto key = trial_key(study, number);
  std::string_view bytes;
  if (!env.get(txn, d, key, bytes))
    return refused("study '" + std::string{study} + "' has no trial " + std::to_string(number));
  auto t = decode_trial(env, key, bytes);
  auto which = "trial " + std::to_string(number) + " of study '" + std::string{study} + "'";
  if (t.attempt != attempt || t.claimant != claimant || t.state != trial_state::claimed) {
    for (auto& a : t.abandoned)
      if (a.attempt == attempt && a.claimant == claimant)
        return refused(which + " was handed back from this attempt (" + std::to_string(attempt)
                       + ", " + std::string{claimant} + ") at " + utc(a.ended_us) + ": " + a.why
                       + "; what this attempt found is not kept");
    return refused(which + " is not held by " + std::string{claimant} + " in attempt "
                   + std::to_string(attempt) + " (it is " + to_string(t.state)
                   + (t.claimant.empty()
                        ? ""
                        : ", attempt " + std::to_string(t.attempt) + " of " + t.claimant)
                   + "); what this attempt found is not kept");
  }
  auto now = now_us();
  if (state == trial_state::waiting) {
    hand_back(env, txn, d, study, t, now, error);
    return {};
  }
  t.state = state;
  t.ended_us = now;
  t.result = state == trial_state::done ? result : values{};
  t.error = state == trial_state::broke ? error : std::string{};
  put_trial(env, txn, d, study, t);
  return {};
}

void check_end(trial_state state) {
  if (state == trial_state::claimed)
    throw store_error("an attempt ends done, broke or waiting (let go), not claimed",
                      store_trouble::invalid);
}

} // namespace

caf::expected<void> detail::end_trial_at(environment& env, std::string_view study,
                                         std::uint64_t number, std::uint32_t attempt,
                                         std::string_view claimant, trial_state state,
                                         const values& result, const std::string& error) {
  check_study(study);
  check_end(state);
  caf::expected<void> ended;
  env.write([&](MDB_txn* txn, const dbi_of& dbi) {
    ended = end_in(env, txn, dbi(db::trials), study, number, attempt, claimant, state, result, error);
  });
  return ended;
}

std::pair<caf::expected<void>, std::optional<trial_row>>
detail::end_and_claim_at(environment& env, std::string_view study, std::uint64_t number,
                         std::uint32_t attempt, std::string_view claimant, trial_state state,
                         const values& result, const std::string& error) {
  check_study(study);
  check_end(state);
  std::pair<caf::expected<void>, std::optional<trial_row>> out;
  env.write([&](MDB_txn* txn, const dbi_of& dbi) {
    auto d = dbi(db::trials);
    out.first = end_in(env, txn, d, study, number, attempt, claimant, state, result, error);
    out.second = claim_in(env, txn, d, study, claimant);
  });
  return out;
}

namespace {

// A part of a group whose `work` gives what `done` hears once it committed;
// a failed group's error reaches `done` as data.
template <class T>
std::unique_ptr<detail::group_part> answered(std::function<T(MDB_txn*, const dbi_of&)> work,
                                             std::function<void(caf::expected<T>)> done) {
  auto got = std::make_shared<T>();
  return detail::part_of(
    [work = std::move(work), got](MDB_txn* txn, const dbi_of& dbi) { *got = work(txn, dbi); },
    [got, done = std::move(done)](const store_error* e) {
      if (e)
        done(caf::expected<T>{as_error(*e)});
      else
        done(caf::expected<T>{std::move(*got)});
    });
}

} // namespace

std::unique_ptr<detail::group_part>
detail::add_trials_part(environment& env, std::string study, std::vector<values> trials,
                        std::string function,
                        std::function<void(caf::expected<std::vector<std::uint64_t>>)> done) {
  check_study(study);
  return answered<std::vector<std::uint64_t>>(
    [&env, study = std::move(study), trials = std::move(trials),
     function = std::move(function)](MDB_txn* txn, const dbi_of& dbi) {
      return add_in(env, txn, dbi, study, trials, function);
    },
    std::move(done));
}

std::unique_ptr<detail::group_part>
detail::end_trial_part(environment& env, wire::trial_end end,
                       std::function<void(caf::expected<caf::expected<void>>)> done) {
  check_study(end.study);
  check_end(end.state);
  return answered<caf::expected<void>>(
    [&env, e = std::move(end)](MDB_txn* txn, const dbi_of& dbi) {
      return end_in(env, txn, dbi(db::trials), e.study, e.number, e.attempt, e.claimant, e.state,
                    e.result, e.error);
    },
    std::move(done));
}

std::unique_ptr<detail::group_part> detail::end_and_claim_part(
  environment& env, wire::trial_end end,
  std::function<void(caf::expected<std::pair<caf::expected<void>, std::optional<trial_row>>>)>
    done) {
  check_study(end.study);
  check_end(end.state);
  using both = std::pair<caf::expected<void>, std::optional<trial_row>>;
  return answered<both>(
    [&env, e = std::move(end)](MDB_txn* txn, const dbi_of& dbi) {
      auto d = dbi(db::trials);
      both out;
      out.first = end_in(env, txn, d, e.study, e.number, e.attempt, e.claimant, e.state,
                         e.result, e.error);
      out.second = claim_in(env, txn, d, e.study, e.claimant);
      return out;
    },
    std::move(done));
}

std::vector<std::uint64_t> detail::reclaim_at(environment& env, std::string_view study,
                                              double quiet_over_s) {
  check_study(study);
  if (!(quiet_over_s >= 0) || !std::isfinite(quiet_over_s))
    throw store_error("reclaim takes the seconds a claimant may be quiet, 0 or more, not "
                      + seconds(quiet_over_s), store_trouble::invalid);
  std::vector<std::uint64_t> handed;
  bool known = true;
  env.write([&](MDB_txn* txn, const dbi_of& dbi) {
    handed.clear();
    auto d = dbi(db::trials);
    if (!get_study(env, txn, d, study)) {
      known = false;
      return;
    }
    auto latest = latest_whens(env, txn, dbi(db::readings));
    std::int64_t newest = std::numeric_limits<std::int64_t>::min();
    for (auto& [id, when] : latest)
      newest = std::max(newest, when);
    std::vector<trial_row> back;
    std::vector<std::string> why;
    each_trial(env, txn, d, study, [&](std::string_view, trial_row&& t) {
      if (t.state != trial_state::claimed)
        return;
      auto at = latest.find(t.claimant);
      if (at == latest.end()) {
        back.push_back(std::move(t));
        why.push_back("handed back: its claimant has no reading in the store (rule: quiet_s over "
                      + seconds(quiet_over_s) + ")");
        return;
      }
      auto quiet = static_cast<double>(newest - at->second) / 1e6;
      if (quiet > quiet_over_s) {
        back.push_back(std::move(t));
        why.push_back("handed back: its claimant's readings were " + seconds(quiet)
                      + " s behind the newest writer's (rule: quiet_s over "
                      + seconds(quiet_over_s) + ")");
      }
    });
    auto now = now_us();
    for (std::size_t i = 0; i < back.size(); ++i) {
      hand_back(env, txn, d, study, back[i], now, why[i]);
      handed.push_back(back[i].number);
    }
  });
  if (!known)
    env.read([&](MDB_txn* txn, const dbi_of& dbi) { no_study(env, txn, dbi(db::trials), study); });
  return handed;
}

caf::expected<void> detail::check_trials_entry(std::string_view key, std::string_view value) {
  auto damaged = [](std::string why) { return make_error(error_code::damaged, std::move(why)); };
  auto kind = key.starts_with("s/")   ? sealed_kind::study
              : key.starts_with("t/") ? sealed_kind::trial
              : key.starts_with("w/") ? sealed_kind::waiting
                                      : sealed_kind{};
  if (kind == sealed_kind{})
    return damaged("a key soma does not write");
  std::string_view payload;
  auto state = unseal(key, value, kind, payload);
  if (state == seal_state::newer)
    return {}; // a newer soma's, not damage
  if (state != seal_state::ok)
    return damaged("its checksum does not match its bytes");
  try {
    if (kind == sealed_kind::study)
      (void)wire::decode_study(payload);
    if (kind == sealed_kind::trial) {
      auto t = wire::decode_trial(payload);
      auto slash = key.find('/', 2);
      if (slash == std::string_view::npos || key.size() != slash + 9
          || from_be64(key.substr(slash + 1)) != t.number)
        return damaged("the trial says it is trial " + std::to_string(t.number)
                       + ", not the one its key names");
    }
  } catch (const undecodable& e) {
    return damaged(std::string{"it does not decode: "} + e.what());
  }
  return {};
}

// ---- through any backend ----

namespace {

// A call that writes: a study's name, and a store that may be written.
void writable(const store& s, std::string_view study, const char* what) {
  check_study(study);
  if (s.read_only())
    throw store_error(std::string{"cannot "} + what + " in the store '" + s.path()
                        + "': it was opened read-only",
                      store_trouble::read_only);
}

} // namespace

std::vector<std::uint64_t> add_trials(store& s, std::string_view study,
                                      const std::vector<values>& trials, std::string_view function) {
  writable(s, study, "add trials");
  return s.backend().add_trials(study, trials, function);
}

std::optional<trial_row> claim_trial(store& s, std::string_view study, std::string_view claimant,
                                     std::chrono::milliseconds wait) {
  writable(s, study, "claim a trial");
  return s.backend().claim_trial(study, claimant, wait);
}

void end_trial(store& s, std::string_view study, const trial_row& claimed, trial_state state,
               const values& result, const std::string& error) {
  writable(s, study, "end a trial");
  if (auto ended = s.backend().end_trial(study, claimed.number, claimed.attempt, claimed.claimant,
                                         state, result, error);
      !ended)
    throw trial_refused(describe(ended.error()));
}

std::optional<trial_row> end_and_claim(store& s, std::string_view study, const trial_row& claimed,
                                       trial_state state, const values& result,
                                       const std::string& error) {
  writable(s, study, "end a trial");
  auto [ended, next] = s.backend().end_and_claim(study, claimed.number, claimed.attempt,
                                                 claimed.claimant, state, result, error);
  if (!ended)
    throw trial_refused(describe(ended.error()), std::move(next));
  return next;
}

std::vector<std::uint64_t> reclaim(store& s, std::string_view study, double quiet_over_s) {
  writable(s, study, "hand trials back");
  return s.backend().reclaim(study, quiet_over_s);
}

std::vector<study_summary> studies(const store& s) {
  std::vector<study_summary> out;
  std::optional<std::string> after;
  do {
    auto part = s.backend().ask().studies(after);
    out.insert(out.end(), std::make_move_iterator(part.studies.begin()),
               std::make_move_iterator(part.studies.end()));
    after = std::move(part.after);
  } while (after);
  return out;
}

std::vector<trial_row> trials(const store& s, std::string_view study) {
  check_study(study);
  auto& ask = s.backend().ask();
  auto said = ask.study(study).trials;
  std::vector<trial_row> out;
  for (;;) {
    auto part = ask.trials(study, out.empty() ? 0 : out.back().number + 1, detail::rows_per_part);
    auto full = part.size() >= detail::rows_per_part;
    out.insert(out.end(), std::make_move_iterator(part.begin()), std::make_move_iterator(part.end()));
    if (!full)
      break;
  }
  // Trials are only ever added: as many as the study said when first asked, at least.
  if (out.size() < said)
    throw store_error("study '" + std::string{study} + "' in the store '" + s.path() + "' has "
                      + std::to_string(said) + " trials (it says), but " + std::to_string(out.size())
                      + " were found; `soma check` says where", store_trouble::damaged);
  return out;
}

study_row study(const store& s, std::string_view name) { return s.backend().ask().study(name); }

detail::studies_part detail::local_answers::studies(const std::optional<std::string>& after) {
  studies_part part;
  auto& out = part.studies;
  auto& env = env_;
  env.read([&](MDB_txn* txn, const dbi_of& dbi) {
    auto d = dbi(db::trials);
    std::vector<study_row> found;
    {
      detail::cursor c{env, txn, d};
      for (bool ok = c.move(MDB_SET_RANGE, after ? "s/" + *after + '\0' : std::string{"s/"});
           ok && c.key().starts_with("s/") && found.size() <= studies_per_part; ok = c.move(MDB_NEXT))
        found.push_back(unsealed<study_row>(env, c.key(), c.value(), detail::sealed_kind::study,
                                            "the study", wire::decode_study));
    }
    std::size_t summed = 0;
    for (auto& st : found) {
      if (!out.empty() && (summed >= trials_per_studies_part || out.size() >= studies_per_part)) {
        part.after = out.back().study.name; // a study is left
        break;
      }
      study_summary sum{st};
      each_trial(env, txn, d, st.name, [&](std::string_view, trial_row&& t) {
        ++summed;
        switch (t.state) {
          case trial_state::waiting: ++sum.waiting; break;
          case trial_state::claimed: ++sum.claimed; break;
          case trial_state::done: ++sum.done; break;
          case trial_state::broke: ++sum.broke; break;
        }
        sum.abandoned += t.abandoned.size();
      });
      out.push_back(std::move(sum));
    }
  });
  return part;
}

std::vector<trial_row> detail::local_answers::trials(std::string_view study, std::uint64_t from,
                                                    std::size_t count) {
  check_study(study);
  count = std::min(count, rows_per_part);
  std::vector<trial_row> out;
  auto& env = env_;
  env.read([&](MDB_txn* txn, const dbi_of& dbi) {
    auto d = dbi(db::trials);
    auto st = get_study(env, txn, d, study);
    if (!st)
      no_study(env, txn, d, study);
    auto prefix = trials_prefix(study);
    detail::cursor c{env, txn, d};
    for (bool ok = c.move(MDB_SET_RANGE, trial_key(study, from));
         ok && c.key().starts_with(prefix) && out.size() < count; ok = c.move(MDB_NEXT))
      out.push_back(decode_trial(env, c.key(), c.value()));
  });
  return out;
}

study_row detail::local_answers::study(std::string_view name) {
  check_study(name);
  std::optional<study_row> out;
  auto& env = env_;
  env.read([&](MDB_txn* txn, const dbi_of& dbi) {
    auto d = dbi(db::trials);
    out = get_study(env, txn, d, name);
    if (!out)
      no_study(env, txn, d, name);
  });
  return *out;
}

} // namespace soma
