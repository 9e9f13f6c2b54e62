#include "soma/store/readers.hpp"

#include <algorithm>
#include <cmath>
#include <charconv>
#include <limits>
#include <map>
#include <ostream>

#include "soma/store/backend.hpp"
#include "soma/store/detail/cursor.hpp"
#include "soma/store/detail/environment.hpp"
#include "soma/store/detail/local_answers.hpp"
#include "soma/store/detail/numbering.hpp"
#include "soma/store/detail/run_summaries.hpp"
#include "soma/store/hosts.hpp"
#include "soma/store/keys.hpp"

namespace soma {

namespace {

using detail::db;
using dbi_fn = std::function<MDB_dbi(db)>;

using detail::cursor;

detail::origin where(const detail::environment& env, std::string_view run, std::uint64_t n,
                     std::string_view what) {
  return detail::origin{what, run, n, env.path()};
}

[[noreturn]] void no_run(const detail::environment& env, std::string_view run) {
  detail::no_run_or_damage(env, run);
}

void check_run(std::string_view run) {
  if (auto ok = check_run_id(run); !ok)
    throw store_error(describe(ok.error()), store_trouble::invalid);
}

// Calls f(n, key, value bytes) for every key of `run` in `which`, in order.
// Returns how many there were.
template <class F>
std::size_t scan_run(const detail::environment& env, MDB_txn* txn, MDB_dbi dbi,
                     std::string_view run, F&& f) {
  if (dbi == 0)
    return 0;
  auto prefix = detail::run_prefix(run);
  cursor c{env, txn, dbi};
  std::size_t count = 0;
  for (bool ok = c.move(MDB_SET_RANGE, prefix); ok && c.key().starts_with(prefix);
       ok = c.move(MDB_NEXT)) {
    std::string_view r;
    std::uint64_t n = 0;
    if (!detail::parse_record_key(c.key(), r, n) || r != run)
      continue;
    ++count;
    f(n, c.key(), c.value());
  }
  return count;
}

std::vector<std::string> summarising(const detail::environment& env, MDB_txn* txn,
                                     const dbi_fn& dbi, std::string_view run) {
  return detail::meta_of(env, txn, dbi(db::meta), run).summarising;
}

void check_numbering(const detail::environment& env, MDB_txn* txn, const dbi_fn& dbi,
                     std::string_view run, std::uint64_t seen, std::uint64_t last_plus_one,
                     std::string_view what = "records") {
  detail::check_count(env, txn, dbi(db::meta), run, what, seen, last_plus_one);
}

std::pair<std::string, std::string> split_name(std::string_view name) {
  auto dot = name.find('.');
  if (dot == std::string_view::npos)
    return {std::string{name}, "value"};
  return {std::string{name.substr(0, dot)}, std::string{name.substr(dot + 1)}};
}

} // namespace

std::string detail::summary_key(std::string_view name) {
  auto [fact, field] = split_name(name);
  return fact + "." + field;
}

namespace {

double number(const scalar& value, std::string_view run, std::uint64_t n,
              std::string_view name) {
  if (auto x = read_number(value)) // a text such as "nan" or "1e5" is plotted as its number
    return *x;
  throw store_error("forward " + std::to_string(n) + " of run '" + std::string{run} + "' has "
                    + std::string{name} + " = '" + value.str()
                    + "', which is not a number; a curve needs numbers", store_trouble::invalid);
}

void add_once(std::vector<std::string>& xs, std::string_view x) {
  if (!x.empty() && std::find(xs.begin(), xs.end(), x) == xs.end())
    xs.emplace_back(x);
}

// How many forwards `run` has (its last record's number + 1), checked
// against its metadata so that a missing tail shows as damage, not as a
// shorter run; none when it has no record. Leaves `c` anywhere.
std::optional<std::uint64_t> run_end(const detail::environment& env, MDB_txn* txn,
                                     const dbi_fn& dbi, cursor& c, std::string_view run) {
  auto prefix = detail::run_prefix(run);
  auto after = detail::record_key(run, std::numeric_limits<std::uint64_t>::max());
  bool past = c.move(MDB_SET_RANGE, after);
  if (!(past ? c.move(MDB_PREV) : c.move(MDB_LAST)))
    return std::nullopt;
  std::string_view r;
  std::uint64_t n = 0;
  if (!c.key().starts_with(prefix) || !detail::parse_record_key(c.key(), r, n) || r != run)
    return std::nullopt;
  auto meta = detail::meta_of(env, txn, dbi(db::meta), run);
  if (meta.next && *meta.next != n + 1)
    check_numbering(env, txn, dbi, run, n + 1, n + 1);
  return n + 1;
}

// Calls f(n, key, bytes) for the entries of `run` in `which` numbered
// `from` .. `to` - 1, which must all be there, in order.
template <class F>
void each_between(const detail::environment& env, MDB_txn* txn, MDB_dbi which,
                  std::string_view run, std::uint64_t from, std::uint64_t to,
                  std::string_view what, F&& f) {
  if (from >= to)
    return;
  if (which == 0)
    env.damaged("run '" + std::string{run} + "' has records but no " + std::string{what});
  auto prefix = detail::run_prefix(run);
  cursor c{env, txn, which};
  std::uint64_t expect = from;
  for (bool ok = c.move(MDB_SET_RANGE, detail::record_key(run, from));
       ok && expect < to && c.key().starts_with(prefix); ok = c.move(MDB_NEXT)) {
    std::string_view r;
    std::uint64_t n = 0;
    if (!detail::parse_record_key(c.key(), r, n) || r != run)
      continue;
    if (n != expect)
      break;
    f(n, c.key(), c.value());
    ++expect;
  }
  if (expect < to)
    env.damaged("forward " + std::to_string(expect) + " of run '" + std::string{run}
                + "' is missing from the " + std::string{what} + " (the run has "
                + std::to_string(to) + " forwards)");
}

} // namespace

void detail::count_forward(run_row& row, const record& r) {
  auto end = r.when_us + std::max<std::int64_t>(0, r.took_us);
  if (row.forwards == 0) {
    row.first = row.last = r.when_s();
    row.first_us = r.when_us;
    row.end_us = end;
  }
  row.first_us = std::min(row.first_us, r.when_us);
  row.end_us = std::max(row.end_us, end);
  row.duration_us = row.end_us - row.first_us;
  row.forwards += 1;
  row.broke += r.state == outcome::broke;
  row.took_us += r.took_us;
  row.first = std::min(row.first, r.when_s());
  row.last = std::max(row.last, r.when_s());
  // The summarised numbers (a text told under a summary key is no number,
  // and a NaN has no place among them: no least, no greatest, no order).
  for (auto& [key, value] : r.summary) {
    auto x = value.number();
    if (!x || std::isnan(*x))
      continue;
    auto it = std::find_if(row.summary_values.begin(), row.summary_values.end(),
                           [&](const value_range& v) { return v.key == key; });
    if (it == row.summary_values.end())
      row.summary_values.push_back({key, *x, r.forward, *x, *x});
    else
      it->add(*x, r.forward);
  }
}

// --- The local answers: each one read transaction of the environment. ---

std::vector<run_row> detail::local_answers::runs(const std::optional<std::string>& after,
                                                 std::size_t count) {
  count = std::min(count, runs_per_part);
  std::vector<run_row> out;
  auto& env = env_;
  env.read([&](MDB_txn* txn, const dbi_fn& dbi) {
    // Each run from the totals its writer keeps beside its records.
    out = run_rows_at(env, txn, dbi(db::records), dbi(db::meta),
                      after ? std::optional<std::string_view>{*after} : std::nullopt, count, dbi(db::trials));
  });
  return out;
}

run_row detail::local_answers::run_summary(std::string_view run) {
  check_run(run);
  std::optional<run_row> row;
  auto& env = env_;
  env.read([&](MDB_txn* txn, const dbi_fn& dbi) {
    row = run_row_at(env, txn, dbi(db::records), dbi(db::meta), run, dbi(db::trials));
  });
  if (!row)
    no_run(env, run);
  return *row;
}

template <class F>
std::uint64_t detail::local_answers::walk_forwards(std::string_view run, std::uint64_t from,
                                                   std::size_t count, F&& f) {
  check_run(run);
  count = std::min(count, forwards_per_part);
  std::optional<std::uint64_t> total;
  auto& env = env_;
  env.read([&](MDB_txn* txn, const dbi_fn& dbi) {
    auto records = dbi(db::records);
    if (records == 0)
      return;
    cursor c{env, txn, records};
    total = run_end(env, txn, dbi, c, run);
    if (!total)
      return;
    auto to = std::min<std::uint64_t>(*total, from + count);
    each_between(env, txn, records, run, from, to, "records", f);
  });
  if (!total)
    no_run(env, run);
  return *total;
}

forward_page detail::local_answers::forwards(std::string_view run, std::uint64_t from,
                                             std::size_t count) {
  forward_page out;
  out.total = walk_forwards(run, from, count, [&](std::uint64_t n, std::string_view key, std::string_view bytes) {
    out.records.push_back(detail::decode_record(key, bytes, where(env_, run, n, "the record")));
  });
  return out;
}

std::optional<detail::stored_forward_page>
detail::local_answers::stored_forwards(std::string_view run, std::uint64_t from, std::size_t count) {
  stored_forward_page out;
  out.from = from;
  out.total = walk_forwards(run, from, count, [&](std::uint64_t, std::string_view, std::string_view bytes) {
    out.values.emplace_back(bytes);
  });
  return out;
}

detail::curve_part detail::local_answers::curve(std::string_view run, std::string_view name,
                                                std::uint64_t from, std::size_t count, bool times) {
  check_run(run);
  count = std::min(count, points_per_part);
  auto [fact_name, field_name] = split_name(name);
  auto flat = fact_name + "." + field_name;
  curve_part out;
  bool any = false;
  auto& env = env_;
  env.read([&](MDB_txn* txn, const dbi_fn& dbi) {
    auto records = dbi(db::records);
    if (records == 0)
      return;
    cursor c{env, txn, records};
    auto end = run_end(env, txn, dbi, c, run);
    if (!end)
      return;
    any = true;
    out.total = *end;
    auto names = summarising(env, txn, dbi, run);
    out.cost = std::find(names.begin(), names.end(), fact_name) != names.end() ? curve_cost::scan
                                                                              : curve_cost::fetch;
    auto to = std::min<std::uint64_t>(*end, from + count);
    out.next = std::max(from, to);
    if (out.cost == curve_cost::scan) {
      each_between(env, txn, records, run, from, to, "records",
                   [&](std::uint64_t n, std::string_view key, std::string_view bytes) {
                     std::int64_t when = 0;
                     auto value = detail::summary_field(key, bytes, where(env, run, n, "the record"),
                                                        flat, times ? &when : nullptr);
                     if (value) {
                       out.points.emplace_back(n, number(*value, run, n, flat));
                       if (times)
                         out.when_us.push_back(when);
                     }
                   });
      return;
    }
    auto words = detail::words_of(env, txn, dbi(db::meta), run);
    each_between(env, txn, dbi(db::facts), run, from, to, "fact blobs",
                 [&](std::uint64_t n, std::string_view key, std::string_view bytes) {
                   auto told = detail::decode_facts(key, bytes, where(env, run, n, "the fact blob"),
                                                    &words);
                   const scalar* value = nullptr;
                   for (auto& f : told)
                     if (f.name == fact_name)
                       if (auto* v = f.find(field_name))
                         value = v;
                   if (!value)
                     return;
                   out.points.emplace_back(n, number(*value, run, n, flat));
                   if (!times)
                     return;
                   // The forward's time is its record's, which a blob
                   // never lacks (they are written together).
                   std::string_view record_bytes;
                   auto record_key = detail::record_key(run, n);
                   if (!env.get(txn, records, record_key, record_bytes))
                     env.damaged("forward " + std::to_string(n) + " of run '" + std::string{run}
                                 + "' has a fact blob but no record");
                   std::int64_t when = 0;
                   (void)detail::summary_field(record_key, record_bytes,
                                               where(env, run, n, "the record"), {}, &when);
                   out.when_us.push_back(when);
                 });
  });
  if (!any)
    no_run(env, run);
  return out;
}

std::vector<fact> detail::local_answers::facts(std::string_view run, std::uint64_t n) {
  check_run(run);
  std::vector<fact> out;
  bool found = false;
  std::optional<std::uint64_t> end;
  auto& env = env_;
  env.read([&](MDB_txn* txn, const dbi_fn& dbi) {
    std::string_view bytes;
    auto key = detail::record_key(run, n);
    found = env.get(txn, dbi(db::facts), key, bytes);
    if (found) {
      auto words = detail::words_of(env, txn, dbi(db::meta), run);
      out = detail::decode_facts(key, bytes, where(env, run, n, "the fact blob"), &words);
      return;
    }
    auto m = detail::meta_of(env, txn, dbi(db::meta), run);
    if (m.next && n < *m.next)
      env.damaged("forward " + std::to_string(n) + " of run '" + std::string{run}
                  + "' was written (the run has " + std::to_string(*m.next)
                  + " forwards, its metadata says), but its fact blob cannot be found");
    if (auto records = dbi(db::records)) {
      cursor c{env, txn, records};
      end = run_end(env, txn, dbi, c, run);
    }
  });
  if (!found) {
    if (!end)
      no_run(env, run);
    throw store_error("run '" + std::string{run} + "' has no forward " + std::to_string(n)
                      + " (it has forwards 0 to " + std::to_string(*end - 1) + ")",
                      store_trouble::missing);
  }
  return out;
}

namespace {

// Counts the fact blobs of forwards `from` .. `from` + `count` - 1 of `run`
// into `tally` (anything with add(facts)), in one read transaction; sets
// the part's `next` and `total`. What nodes() and hosts() share.
template <class Tally, class Part>
void tally_blobs(const detail::environment& env, std::string_view run, std::uint64_t from,
                 std::size_t count, Tally& tally, Part& out) {
  check_run(run);
  count = std::min(count, detail::blobs_per_part);
  bool any = false;
  env.read([&](MDB_txn* txn, const dbi_fn& dbi) {
    auto records = dbi(db::records);
    if (records == 0)
      return;
    cursor c{env, txn, records};
    auto end = run_end(env, txn, dbi, c, run);
    if (!end)
      return;
    any = true;
    out.total = *end;
    auto to = std::min<std::uint64_t>(*end, from + count);
    out.next = std::max(from, to);
    auto words = detail::words_of(env, txn, dbi(db::meta), run);
    each_between(env, txn, dbi(db::facts), run, from, to, "fact blobs",
                 [&](std::uint64_t n, std::string_view key, std::string_view bytes) {
                   tally.add(detail::decode_facts(key, bytes, where(env, run, n, "the fact blob"),
                                                  &words));
                 });
  });
  if (!any)
    no_run(env, run);
}

} // namespace

detail::nodes_part detail::local_answers::nodes(std::string_view run, std::uint64_t from,
                                                std::size_t count) {
  node_tally tally;
  nodes_part out;
  tally_blobs(env_, run, from, count, tally, out);
  out.rows = tally.sums();
  return out;
}

detail::hosts_part detail::local_answers::hosts(std::string_view run, std::uint64_t from,
                                                std::size_t count) {
  host_tally tally;
  hosts_part out;
  tally_blobs(env_, run, from, count, tally, out);
  out.rows = tally.sums();
  out.trips = tally.trips();
  out.machines = tally.machines();
  return out;
}

std::uint64_t detail::local_answers::version() { return env_.last_txn(); }

// --- The readers: the same questions, asked of any backend in parts. ---

std::vector<run_row> runs(const store& s) {
  std::vector<run_row> out;
  std::optional<std::string> after;
  for (;;) {
    auto part = s.backend().ask().runs(after, detail::runs_per_part);
    auto full = part.size() >= detail::runs_per_part;
    out.insert(out.end(), std::make_move_iterator(part.begin()), std::make_move_iterator(part.end()));
    if (!full || out.empty())
      return out;
    after = out.back().run;
  }
}

std::vector<record> forwards(const store& s, std::string_view run) {
  auto first = s.backend().ask().forwards(run, 0, detail::forwards_per_part);
  auto out = std::move(first.records);
  // As many as the run had when the first part was read: a recorder that
  // goes on writing meanwhile does not keep this reading.
  while (out.size() < first.total) {
    auto part = s.backend().ask().forwards(run, out.size(), detail::forwards_per_part);
    if (part.records.empty())
      break;
    out.insert(out.end(), std::make_move_iterator(part.records.begin()),
               std::make_move_iterator(part.records.end()));
  }
  if (out.size() > first.total)
    out.resize(first.total);
  return out;
}

forward_page forwards(const store& s, std::string_view run, std::uint64_t from,
                      std::size_t count) {
  forward_page out;
  for (;;) {
    auto part = s.backend().ask().forwards(run, from + out.records.size(),
                                           std::min(count - out.records.size(), detail::forwards_per_part));
    out.total = part.total;
    bool short_part = part.records.empty();
    out.records.insert(out.records.end(), std::make_move_iterator(part.records.begin()),
                       std::make_move_iterator(part.records.end()));
    if (short_part || out.records.size() >= count || from + out.records.size() >= out.total)
      return out;
  }
}

run_row run_summary(const store& s, std::string_view run) {
  return s.backend().ask().run_summary(run);
}

std::string_view to_string(curve_cost x) noexcept {
  return x == curve_cost::scan ? "scan" : "fetch";
}

std::ostream& operator<<(std::ostream& out, curve_cost x) {
  return out << to_string(x);
}

curve_cost curve_costs(const store& s, std::string_view run, std::string_view name) {
  return s.backend().ask().curve(run, name, 0, 0).cost;
}

namespace {

// Hands `take` each part of the curve, as many forwards as the run had when
// the first part was read.
template <class Take>
void each_curve_part(const store& s, std::string_view run, std::string_view name, curve_cost* took,
                     bool times, Take take) {
  auto& ask = s.backend().ask();
  auto part = ask.curve(run, name, 0, detail::points_per_part, times);
  auto total = part.total;
  if (took)
    *took = part.cost;
  take(part);
  while (part.next < total) {
    part = ask.curve(run, name, part.next,
                     std::min<std::uint64_t>(detail::points_per_part, total - part.next), times);
    take(part);
    if (part.next >= part.total)
      break; // the run shrank (it was written over)
  }
}

} // namespace

std::vector<std::pair<std::uint64_t, double>> curve(const store& s, std::string_view run,
                                                    std::string_view name, curve_cost* took) {
  std::vector<std::pair<std::uint64_t, double>> out;
  each_curve_part(s, run, name, took, false, [&](detail::curve_part& p) {
    if (out.empty())
      out = std::move(p.points);
    else
      out.insert(out.end(), p.points.begin(), p.points.end());
  });
  return out;
}

curve_columns curve_series(const store& s, std::string_view run, std::string_view name,
                           curve_cost* took) {
  curve_columns out;
  bool timed = true;
  each_curve_part(s, run, name, took, true, [&](detail::curve_part& p) {
    timed = timed && p.when_us.size() == p.points.size();
    for (auto& [n, v] : p.points) {
      out.forward.push_back(n);
      out.value.push_back(v);
    }
    out.when_us.insert(out.when_us.end(), p.when_us.begin(), p.when_us.end());
  });
  if (!timed)
    out.when_us.clear();
  return out;
}

std::vector<fact> facts(const store& s, std::string_view run, std::uint64_t n) {
  return s.backend().ask().facts(run, n);
}

std::vector<node_row> nodes(const store& s, std::string_view run, std::optional<std::size_t> last) {
  auto& ask = s.backend().ask();
  std::uint64_t from = 0;
  auto part = ask.nodes(run, 0, last ? 0 : detail::blobs_per_part);
  auto total = part.total;
  detail::node_tally tally;
  if (last) {
    from = *last >= total ? 0 : total - *last;
    part = ask.nodes(run, from, detail::blobs_per_part);
  }
  for (;;) {
    tally.merge(part.rows);
    if (part.next >= total || part.next >= part.total)
      break;
    part = ask.nodes(run, part.next, std::min<std::uint64_t>(detail::blobs_per_part, total - part.next));
  }
  return tally.rows();
}

void detail::node_tally::add(const std::vector<fact>& told) {
  for (auto& f : told) {
    bool ran = f.name == "ran", failed = f.name == "failed", recalled = f.name == "recalled";
    if (!ran && !failed && !recalled)
      continue;
    auto node = f["node"].text();
    auto it = index_.find(node);
    if (it == index_.end()) {
      it = index_.emplace(std::string{node}, rows_.size()).first;
      rows_.emplace_back().node = node;
    }
    auto& row = rows_[it->second];
    row.ran += ran;
    row.failed += failed;
    row.recalled += recalled;
    if (ran || failed) {
      row.took_us += f["took_us"].integer_or(0);
    }
    add_once(row.hosts, f["host"].text());
    add_once(row.devices, f["device"].text());
  }
}

void detail::node_tally::merge(const std::vector<node_row>& sums) {
  for (auto& x : sums) {
    auto it = index_.find(x.node);
    if (it == index_.end()) {
      it = index_.emplace(x.node, rows_.size()).first;
      rows_.emplace_back().node = x.node;
    }
    auto& row = rows_[it->second];
    row.ran += x.ran;
    row.failed += x.failed;
    row.recalled += x.recalled;
    row.took_us += x.took_us;
    for (auto& h : x.hosts)
      add_once(row.hosts, h);
    for (auto& d : x.devices)
      add_once(row.devices, d);
  }
}

std::vector<node_row> detail::node_tally::rows() const {
  auto out = rows_;
  for (auto& row : out) {
    auto calls = row.ran + row.failed;
    row.mean_us = calls > 0 ? static_cast<double>(row.took_us) / static_cast<double>(calls) : 0;
  }
  return out;
}

} // namespace soma
