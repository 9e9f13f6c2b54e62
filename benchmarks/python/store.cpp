// bench_python_store: the stores benchmarks/python/bench.py reads from
// Python, and the C++ reader's time on each, for the ratio.
//
//   bench_python_store DIR runs N    writes N runs of 20 forwards, each with
//                                    params (lr, seed) and a summarised loss
//   bench_python_store DIR curve N   writes one run ("long") of N forwards,
//                                    each telling a summarised loss
//   bench_python_store DIR runs      times soma::runs() + select_runs() on
//                                    the store, 5 times
//   bench_python_store DIR curve     times soma::curve_series("long")
//
// Timing prints `cpp_ms MEDIAN` (of the 5) and what the reader returned, so
// the Python side can check it read the same; bench.py alternates it with
// its own timings, since this machine's speed drifts between minutes.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "soma/store/backend.hpp"
#include "soma/store/readers.hpp"
#include "soma/store/record_log.hpp"
#include "soma/store/run_query.hpp"
#include "soma/store/store.hpp"

namespace {

using clock_type = std::chrono::steady_clock;

std::int64_t now_us() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
           std::chrono::system_clock::now().time_since_epoch())
    .count();
}

// Writes `count` forwards of `run`, forward n telling loss 1/(n+1), in
// batches of 1000 as a recorder's writer does.
void write_run(soma::store& s, const std::string& run, std::size_t count, soma::values params) {
  soma::detail::log_options o;
  o.run = run;
  o.summarising = {"loss"};
  o.params = std::move(params);
  soma::detail::record_log log{s.backend().local(), o};
  auto when0 = now_us();
  constexpr std::size_t batch = 1000;
  std::vector<std::vector<soma::fact>> facts(batch);
  std::vector<soma::detail::log_entry> entries;
  for (std::size_t first = 0; first < count; first += batch) {
    entries.clear();
    for (std::size_t n = first; n < std::min(count, first + batch); ++n) {
      auto& f = facts[n - first];
      f = {soma::fact{"ran", {{"node", "step"}, {"took_us", std::int64_t{40}}}},
           soma::fact{"loss", {{"value", 1.0 / static_cast<double>(n + 1)}}},
           soma::fact{"finished", {{"took_us", std::int64_t{50}}}}};
      entries.push_back({n + 1, std::nullopt,
                         soma::detail::make_record(f, 0, soma::outcome::ok, 50,
                                                   when0 + static_cast<std::int64_t>(n) * 100,
                                                   o.summarising),
                         &f});
    }
    (void)log.write(entries, {});
  }
  log.end();
}

// The median of 5 calls after a warm one (which maps the store's pages into
// this process, as the Python side's warm call does in its own).
template <class Read>
double median_ms(Read read) {
  read();
  std::vector<double> ms;
  for (int i = 0; i < 5; ++i) {
    auto began = clock_type::now();
    read();
    ms.push_back(std::chrono::duration<double, std::milli>(clock_type::now() - began).count());
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

} // namespace

int main(int argc, char** argv) {
  if ((argc != 3 && argc != 4)
      || (std::string{argv[2]} != "runs" && std::string{argv[2]} != "curve")) {
    std::fprintf(stderr, "usage: bench_python_store DIR runs|curve [N]\n");
    return 2;
  }
  bool runs = std::string{argv[2]} == "runs";
  soma::store_options so;
  so.expendable = true; // a benchmark's store: one sync per commit
  soma::store s{argv[1], so};
  if (argc == 4) {
    auto n = static_cast<std::size_t>(std::atoll(argv[3]));
    if (!runs) {
      write_run(s, "long", n, {});
      return 0;
    }
    for (std::size_t k = 0; k < n; ++k)
      write_run(s, "run-" + std::to_string(k), 20,
                soma::values{{"lr", 0.001 * static_cast<double>(k % 100 + 1)},
                             {"seed", static_cast<std::int64_t>(k)}});
    return 0;
  }
  if (runs) {
    std::size_t got = 0;
    auto ms = median_ms([&] { got = soma::select_runs(soma::runs(s), {}).size(); });
    std::printf("cpp_ms %.3f\nreturned %zu\n", ms, got);
    return 0;
  }
  std::size_t got = 0;
  auto ms = median_ms([&] { got = soma::curve_series(s, "long", "loss").value.size(); });
  std::printf("cpp_ms %.3f\nreturned %zu\n", ms, got);
  return 0;
}
