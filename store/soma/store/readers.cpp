#include "soma/store/readers.hpp"

#include <algorithm>
#include <charconv>
#include <limits>
#include <map>
#include <ostream>

#include "soma/store/detail/cursor.hpp"
#include "soma/store/detail/environment.hpp"
#include "soma/store/detail/numbering.hpp"
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

[[noreturn]] void no_run(const store& s, std::string_view run) {
  throw no_run_error("no run '" + std::string{run} + "' in the store '" + s.path()
                    + "'; `soma runs` lists the runs it holds");
}

void check_run(const store& s, std::string_view run) {
  if (auto why = why_not_a_run_id(run))
    throw store_error(*why, store_trouble::invalid);
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

double number(std::string_view text, std::string_view run, std::uint64_t n,
              std::string_view name) {
  double x = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), x);
  if (ec != std::errc{} || end != text.data() + text.size())
    throw store_error("forward " + std::to_string(n) + " of run '" + std::string{run} + "' has "
                      + std::string{name} + " = '" + std::string{text}
                      + "', which is not a number; a curve needs numbers", store_trouble::invalid);
  return x;
}

void add_once(std::vector<std::string>& xs, std::string_view x) {
  if (!x.empty() && std::find(xs.begin(), xs.end(), x) == xs.end())
    xs.emplace_back(x);
}

// Calls f(record) for every record of `run`, in forward order, in one read
// transaction; throws for an unknown run or a run whose numbers skip.
template <class F>
void each_record(const store& s, std::string_view run, F&& f) {
  check_run(s, run);
  std::uint64_t seen = 0;
  auto held = s.reading();
  auto& env = *held;
  env.read([&](MDB_txn* txn, const dbi_fn& dbi) {
    std::uint64_t last_plus_one = 0;
    seen = scan_run(env, txn, dbi(db::records), run,
                    [&](std::uint64_t n, std::string_view key, std::string_view bytes) {
                      f(detail::decode_record(key, bytes, where(env, run, n, "the record")));
                      last_plus_one = n + 1;
                    });
    check_numbering(env, txn, dbi, run, seen, last_plus_one);
  });
  if (seen == 0)
    no_run(s, run);
}

} // namespace

void detail::count_forward(run_row& row, const record& r) {
  if (row.forwards == 0)
    row.first = row.last = r.when;
  row.forwards += 1;
  row.broke += r.state == outcome::broke;
  row.took_us += r.took_us;
  row.first = std::min(row.first, r.when);
  row.last = std::max(row.last, r.when);
}

std::vector<run_row> runs(const store& s) {
  std::vector<run_row> out;
  auto held = s.reading();
  auto& env = *held;
  env.read([&](MDB_txn* txn, const dbi_fn& dbi) {
    auto records = dbi(db::records);
    if (records == 0)
      return;
    cursor c{env, txn, records};
    std::uint64_t last_plus_one = 0;
    for (bool ok = c.move(MDB_FIRST); ok; ok = c.move(MDB_NEXT)) {
      std::string_view run;
      std::uint64_t n = 0;
      // Only records are kept here: a key that is none is one damage changed
      // (skipped, it would pass for a run one forward shorter).
      if (!detail::parse_record_key(c.key(), run, n))
        env.damaged("a record's key (" + detail::printable_key(c.key())
                    + ") is no run's entry (run/<id>/<n>)");
      auto r = detail::decode_record(c.key(), c.value(), where(env, run, n, "the record"));
      if (out.empty() || out.back().run != run) {
        if (!out.empty())
          check_numbering(env, txn, dbi, out.back().run, out.back().forwards, last_plus_one);
        out.push_back(run_row{std::string{run}, 0, 0, 0, 0, 0});
      }
      last_plus_one = n + 1;
      detail::count_forward(out.back(), r);
    }
    if (!out.empty())
      check_numbering(env, txn, dbi, out.back().run, out.back().forwards, last_plus_one);
  });
  return out;
}

std::vector<record> forwards(const store& s, std::string_view run) {
  std::vector<record> out;
  each_record(s, run, [&](record r) { out.push_back(std::move(r)); });
  return out;
}

forward_page forwards(const store& s, std::string_view run, std::uint64_t from,
                      std::size_t count) {
  check_run(s, run);
  forward_page out;
  bool any = false;
  auto held = s.reading();
  auto& env = *held;
  env.read([&](MDB_txn* txn, const dbi_fn& dbi) {
    auto records = dbi(db::records);
    if (records == 0)
      return;
    auto prefix = detail::run_prefix(run);
    cursor c{env, txn, records};
    // The run's last record says how many it has; its metadata says how many
    // were written, so a missing tail shows as damage, not as a shorter run.
    std::uint64_t last_plus_one = 0;
    auto after = detail::record_key(run, std::numeric_limits<std::uint64_t>::max());
    bool past = c.move(MDB_SET_RANGE, after);
    if (past ? c.move(MDB_PREV) : c.move(MDB_LAST)) {
      std::string_view r;
      std::uint64_t n = 0;
      if (c.key().starts_with(prefix) && detail::parse_record_key(c.key(), r, n) && r == run) {
        any = true;
        last_plus_one = n + 1;
      }
    }
    if (!any)
      return;
    auto meta = detail::meta_of(env, txn, dbi(db::meta), run);
    if (meta.next && *meta.next != last_plus_one)
      check_numbering(env, txn, dbi, run, last_plus_one, last_plus_one);
    out.total = last_plus_one;
    std::uint64_t expect = from;
    for (bool ok = from < last_plus_one && c.move(MDB_SET_RANGE, detail::record_key(run, from));
         ok && out.records.size() < count && c.key().starts_with(prefix); ok = c.move(MDB_NEXT)) {
      std::string_view r;
      std::uint64_t n = 0;
      if (!detail::parse_record_key(c.key(), r, n) || r != run)
        continue;
      if (n != expect)
        env.damaged("forward " + std::to_string(expect) + " of run '" + std::string{run}
                    + "' is missing (the next record is forward " + std::to_string(n) + ")");
      out.records.push_back(detail::decode_record(c.key(), c.value(), where(env, run, n, "the record")));
      ++expect;
    }
  });
  if (!any)
    no_run(s, run);
  return out;
}

run_row run_summary(const store& s, std::string_view run) {
  run_row row{std::string{run}, 0, 0, 0, 0, 0};
  each_record(s, run, [&](const record& r) { detail::count_forward(row, r); });
  return row;
}

std::string_view to_string(curve_cost x) noexcept {
  return x == curve_cost::scan ? "scan" : "fetch";
}

std::ostream& operator<<(std::ostream& out, curve_cost x) {
  return out << to_string(x);
}

curve_cost curve_costs(const store& s, std::string_view run, std::string_view name) {
  check_run(s, run);
  auto fact_name = split_name(name).first;
  bool summarised = false;
  bool any = false;
  auto held = s.reading();
  auto& env = *held;
  env.read([&](MDB_txn* txn, const dbi_fn& dbi) {
    if (auto records = dbi(db::records)) {
      auto prefix = detail::run_prefix(run);
      cursor c{env, txn, records};
      any = c.move(MDB_SET_RANGE, prefix) && c.key().starts_with(prefix);
    }
    if (!any)
      check_numbering(env, txn, dbi, run, 0, 0);
    auto names = summarising(env, txn, dbi, run);
    summarised = std::find(names.begin(), names.end(), fact_name) != names.end();
  });
  if (!any)
    no_run(s, run);
  return summarised ? curve_cost::scan : curve_cost::fetch;
}

std::vector<std::pair<std::uint64_t, double>> curve(const store& s, std::string_view run,
                                                    std::string_view name, curve_cost* took) {
  auto cost = curve_costs(s, run, name);
  if (took)
    *took = cost;
  auto [fact_name, field_name] = split_name(name);
  auto flat = fact_name + "." + field_name;
  std::vector<std::pair<std::uint64_t, double>> out;
  auto held = s.reading();
  auto& env = *held;
  env.read([&](MDB_txn* txn, const dbi_fn& dbi) {
    std::uint64_t last_plus_one = 0;
    if (cost == curve_cost::scan) {
      auto seen = scan_run(env, txn, dbi(db::records), run,
               [&](std::uint64_t n, std::string_view key, std::string_view bytes) {
        last_plus_one = n + 1;
        auto value = detail::summary_field(key, bytes, where(env, run, n, "the record"), flat);
        if (value)
          out.emplace_back(n, value->number ? *value->number : number(value->text, run, n, flat));
      });
      check_numbering(env, txn, dbi, run, seen, last_plus_one);
      return;
    }
    auto seen = scan_run(env, txn, dbi(db::facts), run,
             [&](std::uint64_t n, std::string_view key, std::string_view bytes) {
      last_plus_one = n + 1;
      auto told = detail::decode_facts(key, bytes, where(env, run, n, "the fact blob"));
      const std::string* value = nullptr;
      for (auto& f : told)
        if (f.name == fact_name)
          if (auto* v = f.find(field_name))
            value = v;
      if (value)
        out.emplace_back(n, number(*value, run, n, flat));
    });
    check_numbering(env, txn, dbi, run, seen, last_plus_one, "fact blobs");
  });
  return out;
}

std::vector<fact> facts(const store& s, std::string_view run, std::uint64_t n) {
  check_run(s, run);
  std::vector<fact> out;
  bool found = false;
  auto held = s.reading();
  auto& env = *held;
  env.read([&](MDB_txn* txn, const dbi_fn& dbi) {
    std::string_view bytes;
    auto key = detail::record_key(run, n);
    found = env.get(txn, dbi(db::facts), key, bytes);
    if (found) {
      out = detail::decode_facts(key, bytes, where(env, run, n, "the fact blob"));
      return;
    }
    auto m = detail::meta_of(env, txn, dbi(db::meta), run);
    if (m.next && n < *m.next)
      env.damaged("forward " + std::to_string(n) + " of run '" + std::string{run}
                  + "' was written (the run has " + std::to_string(*m.next)
                  + " forwards, its metadata says), but its fact blob cannot be found");
  });
  if (!found) {
    auto all = forwards(s, run); // throws for an unknown run
    throw store_error("run '" + std::string{run} + "' has no forward " + std::to_string(n)
                      + " (it has forwards " + std::to_string(all.front().forward) + " to "
                      + std::to_string(all.back().forward) + ")", store_trouble::missing);
  }
  return out;
}

std::vector<node_row> nodes(const store& s, std::string_view run, std::optional<std::size_t> last) {
  check_run(s, run);
  detail::node_tally tally;
  auto count = [&](const std::vector<fact>& told) { tally.add(told); };
  bool any = false;
  auto held = s.reading();
  auto& env = *held;
  env.read([&](MDB_txn* txn, const dbi_fn& dbi) {
    auto blobs = dbi(db::facts);
    if (!last) {
      std::uint64_t last_plus_one = 0;
      auto seen = scan_run(env, txn, blobs, run,
                           [&](std::uint64_t n, std::string_view key, std::string_view bytes) {
                             last_plus_one = n + 1;
                             count(detail::decode_facts(key, bytes,
                                                        where(env, run, n, "the fact blob")));
                           });
      any = seen > 0;
      check_numbering(env, txn, dbi, run, seen, last_plus_one, "fact blobs");
      return;
    }
    if (blobs == 0) {
      check_numbering(env, txn, dbi, run, 0, 0, "fact blobs");
      return;
    }
    // Only the tail: walk back from the end of the run, then count forwards.
    auto prefix = detail::run_prefix(run);
    auto past = detail::past_run(run);
    cursor c{env, txn, blobs};
    bool ok = c.move(MDB_SET_RANGE, past) ? c.move(MDB_PREV) : c.move(MDB_LAST);
    std::vector<std::pair<std::uint64_t, std::vector<fact>>> tail;
    for (; ok && tail.size() < *last && c.key().starts_with(prefix); ok = c.move(MDB_PREV)) {
      std::string_view r;
      std::uint64_t n = 0;
      if (detail::parse_record_key(c.key(), r, n) && r == run)
        tail.emplace_back(n, detail::decode_facts(c.key(), c.value(),
                                                  where(env, run, n, "the fact blob")));
    }
    any = !tail.empty() || (ok && c.key().starts_with(prefix));
    // The tail must be the run's last forwards, one after another.
    for (std::size_t i = 1; i < tail.size(); ++i)
      if (tail[i].first + 1 != tail[i - 1].first)
        env.damaged("the fact blobs of run '" + std::string{run} + "' skip from forward "
                    + std::to_string(tail[i].first) + " to " + std::to_string(tail[i - 1].first)
                    + ": some are missing or were moved");
    if (*last > 0 || !any)
      detail::check_tail(env, txn, dbi(db::meta), run, "fact blobs", tail.size(),
                         tail.empty() ? 0 : tail.front().first,
                         tail.size() < *last); // the walk ran out before --last did
    for (auto it = tail.rbegin(); it != tail.rend(); ++it)
      count(it->second);
  });
  if (!any)
    no_run(s, run);
  return tally.rows();
}

void detail::node_tally::add(const std::vector<fact>& told) {
  for (auto& f : told) {
    bool ran = f.name == "ran", failed = f.name == "failed", recalled = f.name == "recalled";
    if (!ran && !failed && !recalled)
      continue;
    auto node = f["node"];
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
      std::int64_t took = 0;
      auto t = f["took_us"];
      std::from_chars(t.data(), t.data() + t.size(), took);
      row.took_us += took;
    }
    add_once(row.hosts, f["host"]);
    add_once(row.devices, f["device"]);
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
