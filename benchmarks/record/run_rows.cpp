// (f) Listing runs: 10 runs of opt.forwards forwards each (1,000,000 in all
// by default), written by the record log directly in batches of 1000 (as a
// recorder's writer does, without the graph), then runs() as a reader
// calls it (since issue 25 it reads the kept totals) and
// detail::run_rows_at alone (the totals the writer kept: a few seeks and
// one metadata read per run), each answer checked against what was
// written.

#include <algorithm>
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "bench.hpp"
#include "soma/store/backend.hpp"
#include "soma/store/detail/environment.hpp"
#include "soma/store/detail/run_summaries.hpp"
#include "soma/store/readers.hpp"
#include "soma/store/record_log.hpp"
#include "soma/store/store.hpp"

namespace bench {

namespace {

constexpr std::size_t runs_written = 10;
constexpr std::size_t batch = 1000;
constexpr double run_rows_target_ms = 5;

// Forward n of a run: what a seed forward tells, broke every 100th.
std::vector<soma::fact> told(std::size_t n) {
  auto i = static_cast<std::int64_t>(n);
  return {soma::fact{"ran", {{"node", "tokenize"}, {"took_us", 8 + i % 9}}},
          soma::fact{"ran", {{"node", "embed"}, {"took_us", i % 2}}},
          soma::fact{"ran", {{"node", "score"}, {"took_us", i % 2}}},
          soma::fact{"finished", {{"took_us", 60 + i % 13}}}};
}

std::string run_name(std::size_t k) {
  return "run-" + std::to_string(k);
}

// Writes the runs; returns what each run's row must say.
std::vector<soma::run_row> write_runs(soma::store& s, std::size_t per_run) {
  std::vector<soma::run_row> want;
  auto when0 = std::chrono::duration_cast<std::chrono::seconds>(
                 std::chrono::system_clock::now().time_since_epoch())
                 .count();
  std::vector<std::vector<soma::fact>> facts(batch);
  std::vector<soma::detail::log_entry> entries;
  for (std::size_t k = 0; k < runs_written; ++k) {
    soma::run_row row{run_name(k), 0, 0, 0, 0, 0};
    soma::detail::record_log log{s.backend().local(), {row.run, {}, false, 0}};
    for (std::size_t first = 0; first < per_run; first += batch) {
      entries.clear();
      for (std::size_t n = first; n < std::min(per_run, first + batch); ++n) {
        auto& f = facts[n - first];
        f = told(n);
        auto state = n % 100 == 99 ? soma::outcome::broke : soma::outcome::ok;
        auto took = static_cast<std::int64_t>(60 + n % 13);
        auto when = when0 + static_cast<std::int64_t>(n / 5000);
        entries.push_back({n + 1, std::nullopt,
                           soma::detail::make_record(f, 0, state, took, when, {}), &f});
        soma::detail::count_forward(row, entries.back().rec);
      }
      (void) log.write(entries, {});
    }
    want.push_back(row);
  }
  return want;
}

bool same(const std::vector<soma::run_row>& got, const std::vector<soma::run_row>& want) {
  if (got.size() != want.size())
    return false;
  for (std::size_t i = 0; i < got.size(); ++i)
    if (got[i].run != want[i].run || got[i].forwards != want[i].forwards
        || got[i].broke != want[i].broke || got[i].took_us != want[i].took_us
        || got[i].first != want[i].first || got[i].last != want[i].last)
      return false;
  return true;
}

template <class Read>
reader_row time_rows(std::string name, std::optional<double> target, const record_options& opt,
                     const std::vector<soma::run_row>& want, Read&& read) {
  reader_row r{std::move(name), {}, target, {}, {}};
  for (unsigned i = 0; i < opt.reader_reps; ++i) {
    auto began = clock::now();
    auto got = read();
    r.ms.push_back(std::chrono::duration<double, std::milli>(clock::now() - began).count());
    if (i > 0)
      continue;
    std::uint64_t forwards = 0;
    for (auto& x : got)
      forwards += x.forwards;
    r.returned = std::to_string(got.size()) + " runs, " + std::to_string(forwards) + " forwards";
    if (!same(got, want))
      r.problems.push_back("the rows differ from what was written");
  }
  return r;
}

} // namespace

std::vector<reader_row> run_rows(const record_options& opt) {
  auto dir = scratch(opt, "f-runs", 0);
  std::vector<reader_row> rows;
  {
    soma::store_options so;
    so.expendable = true; // a benchmark's store: one sync per commit
    soma::store s{dir, so};
    auto want = write_runs(s, opt.forwards);
    auto total = std::to_string(runs_written * opt.forwards);
    rows.push_back(time_rows("f  runs() over " + total + " records", std::nullopt, opt,
                             want, [&] { return soma::runs(s); }));
    rows.push_back(time_rows(
      "f  detail::run_rows_at: " + std::to_string(runs_written) + " runs' kept totals",
      run_rows_target_ms, opt, want, [&] {
        std::vector<soma::run_row> got;
        auto held = s.backend().local();
        held->read([&](MDB_txn* txn, const std::function<MDB_dbi(soma::detail::db)>& dbi) {
          got = soma::detail::run_rows_at(*held, txn, dbi(soma::detail::db::records),
                                          dbi(soma::detail::db::meta), std::nullopt, 1000);
        });
        return got;
      }));
  }
  discard(dir);
  return rows;
}

} // namespace bench
