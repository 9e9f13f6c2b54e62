#include "soma/store/detail/run_summaries.hpp"

#include <string>

#include "soma/store/detail/cursor.hpp"
#include "soma/store/detail/environment.hpp"
#include "soma/store/detail/numbering.hpp"
#include "soma/store/keys.hpp"
#include "soma/store/run_status.hpp"
#include "soma/store/detail/trial_runs.hpp"
#include "soma/store/detail/key_bytes.hpp"
#include "soma/store/detail/run_standing.hpp"

namespace soma::detail {

void add_forward(run_totals& t, const record& r) {
  // Through count_forward itself, so that the kept totals and a count of
  // the records can never differ in how they add up.
  run_row row{.forwards = t.forwards, .broke = t.broke, .took_us = t.took_us, .first = t.first,
              .last = t.last};
  row.summary_values = std::move(t.values);
  row.first_us = t.first_us;
  row.end_us = t.end_us;
  count_forward(row, r);
  t = run_totals{row.forwards, row.broke, row.took_us, row.first, row.last, std::move(row.summary_values),
                 t.values_kept, row.first_us, row.end_us};
}

run_row row_of(std::string_view run, const run_totals& t) {
  auto row = run_row{.run = std::string{run}, .forwards = t.forwards, .broke = t.broke,
                     .took_us = t.took_us, .first = t.first, .last = t.last};
  row.summary_values = t.values;
  row.first_us = t.first_us;
  row.end_us = t.end_us;
  if (t.values_kept && t.forwards > 0)
    row.duration_us = t.end_us - t.first_us;
  return row;
}

namespace {

// `row` with what the run's metadata `m` says of it beside its totals, and
// the trial it was recorded for (looked for in `trials`, when given).
run_row described(run_row row, run_meta&& m, const environment& env, MDB_txn* txn,
                  MDB_dbi trials) {
  auto standing = standing_of(m);
  row.status = standing.status;
  row.how = std::move(standing.how);
  row.params = std::move(m.params);
  row.tags = std::move(m.tags);
  row.ended_us = m.ended_us;
  row.executions = std::move(m.executions);
  if (trials != 0)
    if (auto t = trial_of_run_in(env, txn, trials, row.run)) {
      auto& trial = t->trial;
      row.trial = run_trial{t->study, trial.number, to_string(trial.state), trial.error};
      if (trial.run != row.run) // an earlier attempt's run
        for (auto& a : trial.abandoned)
          if (a.run == row.run) {
            // Its reason as the attempt keeps it ("handed back: its
            // claimant ..."), without the state said beside it.
            constexpr std::string_view said = "handed back: ";
            row.trial->state = "handed back";
            row.trial->error = a.why.starts_with(said) ? a.why.substr(said.size()) : a.why;
          }
    }
  return row;
}

} // namespace

run_count count_run(const environment& env, MDB_txn* txn, MDB_dbi records,
                    std::string_view run) {
  run_count out;
  if (records == 0)
    return out;
  auto prefix = run_prefix(run);
  cursor c{env, txn, records};
  for (bool ok = c.move(MDB_SET_RANGE, prefix); ok && c.key().starts_with(prefix);
       ok = c.move(MDB_NEXT)) {
    std::string_view r;
    std::uint64_t n = 0;
    if (!parse_record_key(c.key(), r, n) || r != run)
      continue;
    add_forward(out.totals, decode_record(c.key(), c.value(),
                                          origin{"the record", run, n, env.path()}));
    ++out.seen;
    out.last_plus_one = n + 1;
  }
  return out;
}

namespace {

[[noreturn]] void not_a_run_key(const environment& env, std::string_view key) {
  env.damaged("a record's key (" + printable_key(key) + ") is no run's entry (run/<id>/<n>)");
}

// The row of `run`, whose last record is numbered last_plus_one - 1.
run_row row_at(const environment& env, MDB_txn* txn, MDB_dbi records, MDB_dbi meta,
               std::string_view run, std::uint64_t last_plus_one, MDB_dbi trials) {
  auto m = meta_of(env, txn, meta, run);
  if (!m.totals) {
    // Written last by a soma that kept no totals: counted as runs() counts.
    auto counted = count_run(env, txn, records, run);
    check_count(env, txn, meta, run, "records", counted.seen, counted.last_plus_one);
    return described(row_of(run, counted.totals), std::move(m), env, txn, trials);
  }
  auto& t = *m.totals;
  auto name = "run '" + std::string{run} + "'";
  if (m.next && t.forwards != *m.next)
    env.damaged(name + " has " + std::to_string(*m.next) + " forwards written (its metadata "
                "says), but its summary counts " + std::to_string(t.forwards));
  if (last_plus_one != t.forwards)
    env.damaged(name + " has " + std::to_string(t.forwards) + " forwards written (its "
                "metadata says), but its last record is numbered "
                + std::to_string(last_plus_one - 1) + ": some are missing or were moved");
  auto row = row_of(run, t);
  return described(std::move(row), std::move(m), env, txn, trials);
}

// With `c` at the first record of a run: moves it to the run's last record
// and returns the run's id and the number after that record. Throws
// store_error (damaged) for a key that is no run's entry.
std::pair<std::string, std::uint64_t> run_at(const environment& env, cursor& c, bool& more) {
  std::string_view found;
  std::uint64_t n = 0;
  if (!parse_record_key(c.key(), found, n))
    not_a_run_key(env, c.key());
  std::string run{found};
  // The run's last record is the entry before the first key past the run.
  more = c.move(MDB_SET_RANGE, past_run(run));
  if (!(more ? c.move(MDB_PREV) : c.move(MDB_LAST)))
    env.damaged("run '" + run + "' has a first record but no last one");
  std::string_view last_run;
  if (!parse_record_key(c.key(), last_run, n))
    not_a_run_key(env, c.key());
  if (last_run != run)
    env.damaged("a record's key (" + printable_key(c.key()) + ") sorts among run '" + run
                + "''s but is not one of them");
  return {std::move(run), n + 1};
}

} // namespace

std::vector<run_row> run_rows_at(const environment& env, MDB_txn* txn, MDB_dbi records,
                                 MDB_dbi meta, std::optional<std::string_view> after,
                                 std::size_t count, MDB_dbi trials) {
  std::vector<run_row> out;
  if (records == 0 || count == 0)
    return out;
  cursor c{env, txn, records};
  // One step per run: from its first record to its last, then to the next
  // run's first.
  bool ok = after ? c.move(MDB_SET_RANGE, past_run(*after)) : c.move(MDB_FIRST);
  while (ok && out.size() < count) {
    bool more = false;
    auto [run, last_plus_one] = run_at(env, c, more);
    out.push_back(row_at(env, txn, records, meta, run, last_plus_one, trials));
    ok = more && c.move(MDB_NEXT);
  }
  return out;
}

std::optional<run_row> run_row_at(const environment& env, MDB_txn* txn, MDB_dbi records,
                                  MDB_dbi meta, std::string_view run, MDB_dbi trials) {
  if (records == 0)
    return std::nullopt;
  cursor c{env, txn, records};
  auto prefix = run_prefix(run);
  if (!c.move(MDB_SET_RANGE, prefix) || !c.key().starts_with(prefix))
    return std::nullopt;
  bool more = false;
  auto [found, last_plus_one] = run_at(env, c, more);
  if (found != run)
    not_a_run_key(env, c.key());
  return row_at(env, txn, records, meta, run, last_plus_one, trials);
}

} // namespace soma::detail
