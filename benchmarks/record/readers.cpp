// (d) Reading back the run (b) recorded: each reader called a few times on
// the same store, every answer checked against what was written.

#include "bench.hpp"
#include "soma/store/check.hpp"
#include "soma/store/readers.hpp"

namespace bench {

namespace {

constexpr double curve_target_ms = 50;
constexpr double nodes_last_target_ms = 10;
constexpr std::size_t last_forwards = 1000;

// Calls `read` opt.reader_reps times; `check` looks at the first answer and
// says what it returned (or adds to the row's problems).
template <class Read, class Check>
reader_row time_reader(std::string name, std::optional<double> target, const record_options& opt,
                       Read&& read, Check&& check) {
  reader_row r{std::move(name), {}, target, {}, {}};
  for (unsigned i = 0; i < opt.reader_reps; ++i) {
    auto began = clock::now();
    auto answer = read();
    r.ms.push_back(std::chrono::duration<double, std::milli>(clock::now() - began).count());
    if (i == 0)
      r.returned = check(answer, r.problems);
  }
  return r;
}

std::string check_nodes(const std::vector<soma::node_row>& got, std::uint64_t want,
                        std::vector<std::string>& problems) {
  const char* names[] = {"tokenize", "embed", "score"};
  bool ok = got.size() == 3;
  for (std::size_t i = 0; ok && i < 3; ++i)
    ok = got[i].node == names[i] && got[i].ran == want;
  if (!ok)
    problems.push_back("expected tokenize, embed, score with " + std::to_string(want)
                       + " runs each");
  return std::to_string(got.size()) + " nodes x " + std::to_string(got.empty() ? 0 : got[0].ran)
         + " runs";
}

} // namespace

std::vector<reader_row> readers(const std::string& store_dir, const workload& w,
                                const record_options& opt) {
  soma::store s{store_dir};
  auto n = w.size();
  std::vector<reader_row> rows;

  auto check_curve = [&](soma::curve_cost want, bool exact_loss) {
    return [&s, &w, n, want, exact_loss](const std::vector<std::pair<std::uint64_t, double>>& c,
                                         std::vector<std::string>& problems) {
      if (soma::curve_costs(s, run_id, exact_loss ? "loss" : "finished.took_us") != want)
        problems.push_back("curve_costs is not " + std::string{soma::to_string(want)});
      std::size_t wrong = c.size() == n ? 0 : n;
      for (std::size_t i = 0; wrong == 0 && i < c.size(); ++i)
        wrong += c[i].first != i || (exact_loss && c[i].second != w.loss[i]);
      if (wrong != 0)
        problems.push_back("the curve has " + std::to_string(c.size()) + " points, not the "
                           + std::to_string(n) + " written");
      return std::to_string(c.size()) + " points, " + std::string{soma::to_string(want)};
    };
  };

  rows.push_back(time_reader(
    "curve(run, \"loss\"), summarised", curve_target_ms, opt,
    [&] { return soma::curve(s, run_id, "loss"); }, check_curve(soma::curve_cost::scan, true)));

  rows.push_back(time_reader(
    "curve(run, \"finished.took_us\"), not summarised", std::nullopt, opt,
    [&] { return soma::curve(s, run_id, "finished.took_us"); },
    check_curve(soma::curve_cost::fetch, false)));

  rows.push_back(time_reader(
    "forwards(run)", std::nullopt, opt, [&] { return soma::forwards(s, run_id); },
    [&](const std::vector<soma::record>& got, std::vector<std::string>& problems) {
      if (got.size() != n || got.back().forward != n - 1 || got.back().nodes != 3)
        problems.push_back("expected " + std::to_string(n) + " records of 3 nodes");
      auto bytes = got.empty() ? std::string{} : soma::detail::encode_record(got.back(), w.keys[n - 1]);
      return std::to_string(got.size()) + " records, the last " + std::to_string(bytes.size())
             + " bytes encoded (floor's: " + std::to_string(w.record_bytes[n - 1].size()) + ")";
    }));

  rows.push_back(time_reader(
    "runs()", std::nullopt, opt, [&] { return soma::runs(s); },
    [&](const std::vector<soma::run_row>& got, std::vector<std::string>& problems) {
      if (got.size() != 1 || got[0].forwards != n)
        problems.push_back("expected one run of " + std::to_string(n) + " forwards");
      return std::to_string(got.size()) + " run of "
             + std::to_string(got.empty() ? 0 : got[0].forwards);
    }));

  rows.push_back(time_reader(
    "facts(run, n), one forward", std::nullopt, opt, [&] { return soma::facts(s, run_id, n - 1); },
    [&](const std::vector<soma::fact>& got, std::vector<std::string>& problems) {
      // Re-encoded with the run's words, the facts the recorder kept should
      // be the size of the floor's blob: the floor writes what the recorder
      // writes.
      soma::detail::run_words words{{"tokenize", "embed", "score", "loss"}};
      std::string bytes;
      soma::detail::encode_facts_into(bytes, got, w.keys[n - 1], words);
      if (got.size() != 5 || got[0].name != "ran" || got[3].name != "finished"
          || got[4].name != "loss")
        problems.push_back("expected ran x3, finished, loss");
      return std::to_string(got.size()) + " facts, " + std::to_string(bytes.size())
             + " bytes encoded (floor's: " + std::to_string(w.blob_bytes[n - 1].size()) + ")";
    }));

  auto last = std::min(last_forwards, n);
  rows.push_back(time_reader(
    "nodes(run, last = " + std::to_string(last) + ")", nodes_last_target_ms, opt,
    [&] { return soma::nodes(s, run_id, last); },
    [&](const std::vector<soma::node_row>& got, std::vector<std::string>& problems) {
      return check_nodes(got, last, problems);
    }));

  rows.push_back(time_reader(
    "nodes(run), all", std::nullopt, opt, [&] { return soma::nodes(s, run_id); },
    [&](const std::vector<soma::node_row>& got, std::vector<std::string>& problems) {
      return check_nodes(got, n, problems);
    }));
  rows.push_back(time_reader(
    "check(store): every entry of the store", std::nullopt, opt, [&] { return soma::check(s); },
    [&](const soma::check_report& got, std::vector<std::string>& problems) {
      if (!got.damaged.empty() || got.entries < 2 * n)
        problems.push_back("expected " + std::to_string(2 * n) + " sound entries or more");
      return std::to_string(got.entries) + " entries, " + std::to_string(got.damaged.size())
             + " damaged";
    }));

  return rows;
}

} // namespace bench
