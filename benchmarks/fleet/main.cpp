// The fleet benchmark: standing and fleet over a store holding 100 machines'
// readings and a 10,000-forward remote run, next to bare LMDB scans of the
// same keys; the `soma` command doing the same; and what writing readings
// costs an idle worker. See benchmarks/README.md for each row.

#include <algorithm>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "../forward/bench.hpp"
#include "bench.hpp"
#include "soma/store/readings.hpp"

namespace {

const char* usage = R"(usage: bench_fleet [options]
  --machines N     machines writing readings into the store (100)
  --readings N     readings each, written with soma::put_reading (600, the
                   retention bound)
  --forwards N     forwards of the remote run fleet reads (10000)
  --reps R         calls of every reader and command row after one warm-up;
                   the median is shown (9)
  --idle S         seconds the workers sit idle per repetition (10)
  --worker-reps R  repetitions of the worker's cost (3)
  --rows LETTERS   s (the readers), c (the soma command), w (the worker's
                   cost); default all
  --dir DIR        where the stores go (default: a fresh directory under
                   /tmp, removed at exit)
)";

bench::fleet_options parse(int argc, char** argv) {
  bench::fleet_options opt;
  bench::each_option(argc, argv, "bench_fleet", usage, [&](std::string_view a, const char* v) {
    std::size_t* counts[] = {&opt.machines, &opt.readings, &opt.forwards,
                             &opt.reps,     &opt.idle_s,   &opt.worker_reps};
    const char* names[] = {"--machines", "--readings", "--forwards",
                           "--reps",     "--idle",     "--worker-reps"};
    for (std::size_t k = 0; k < std::size(names); ++k)
      if (a == names[k]) {
        *counts[k] = bench::positive("bench_fleet", usage, a, v);
        return true;
      }
    if (a == "--rows")
      opt.rows = v;
    else if (a == "--dir")
      opt.dir = v;
    else
      return false;
    return true;
  });
  return opt;
}

// Half the range over the repetitions, in % of the median.
double spread(const std::vector<double>& xs, double median) {
  if (xs.empty() || median == 0)
    return 0;
  auto [lo, hi] = std::minmax_element(xs.begin(), xs.end());
  return (*hi - *lo) / 2 / median * 100;
}

// Prints the rows; false when any found a problem (a wrong answer, not a
// missed target: targets are said on their line).
bool print(const std::vector<bench::timed_row>& rows) {
  bool ok = true;
  for (auto& r : rows) {
    auto m = bench::row::median_of(r.ms);
    char ratio[32] = "";
    if (r.floor_ms > 0)
      std::snprintf(ratio, sizeof ratio, "%.2f", m / r.floor_ms);
    std::string target;
    if (r.target_ms > 0)
      target = "< " + std::to_string(static_cast<int>(r.target_ms)) + " ms: "
               + (m < r.target_ms ? "met" : "MISSED");
    std::printf("%-46s %10.3f ms  ±%5.1f%%  %8s  %s%s\n", r.name.c_str(), m, spread(r.ms, m),
                ratio, target.c_str(), r.note.empty() ? "" : ("(" + r.note + ")").c_str());
    for (auto& p : r.problems) {
      std::printf("problem: %s\n", p.c_str());
      ok = false;
    }
  }
  return ok;
}

} // namespace

int main(int argc, char** argv) {
  auto opt = parse(argc, argv);
  bench::scratch_dir scratch{opt.dir, "bench_fleet", [](const std::string& why) {
                               bench::refuse("bench_fleet", usage, why);
                             }};
  bool ok = true;
  auto store_dir = opt.dir + "/store";
  if (opt.wants('s') || opt.wants('c')) {
    soma::store s{store_dir};
    auto built = bench::write_fleet_store(s, opt);
    std::printf("bench_fleet: %zu machines x %zu readings (put_reading: %.1f µs each, durable "
                "commit included, %.1f µs of it CPU), a remote run of %zu forwards (written in "
                "%.0f ms); median of %zu\n\n",
                opt.machines, opt.readings, built.put_reading_us, built.put_reading_cpu_us,
                opt.forwards, built.run_ms, opt.reps);
    std::printf("%-46s %13s  %7s  %8s  %s\n", "row", "median", "spread", "x floor", "target");
    if (opt.wants('s'))
      ok = print(bench::reader_rows(s, opt)) && ok;
    if (opt.wants('c'))
      ok = print(bench::command_rows(store_dir, opt)) && ok;
  }
  if (opt.wants('w')) {
    auto cost = bench::measure_worker(opt);
    std::printf("\nw  idle soma-node workers, side by side, %zu s x %zu: CPU in %% of one core\n",
                opt.idle_s, opt.worker_reps);
    // One block per way of counting: each variant's CPU, and what it spends
    // beyond the reference (median of the repetitions' differences).
    auto block = [&](const char* title, std::vector<double> bench::worker_variant::*pct) {
      std::printf("   %-38s %8s %8s %8s %10s %9s %11s\n", title, "median", "min", "max", "- ref",
                  "readings", "µs/reading");
      double extra_on_disk = 0;
      auto& ref = cost.variants[0].*pct;
      for (std::size_t k = 0; k < cost.variants.size(); ++k) {
        auto& v = cost.variants[k];
        auto& xs = v.*pct;
        if (xs.empty())
          continue;
        auto [lo, hi] = std::minmax_element(xs.begin(), xs.end());
        std::printf("   %-38s %8.4f %8.4f %8.4f", v.name.c_str(), bench::row::median_of(xs), *lo,
                    *hi);
        std::vector<double> over;
        for (std::size_t i = 0; i < xs.size() && i < ref.size(); ++i)
          over.push_back(xs[i] - ref[i]);
        auto extra = bench::row::median_of(over);
        auto readings = bench::row::median_of(v.readings);
        if (k > 0)
          std::printf(" %+10.4f %9.0f %11.1f", extra, readings,
                      readings > 0 ? extra / 100 * static_cast<double>(opt.idle_s) * 1e6 / readings
                                   : 0.0);
        std::printf("\n");
        if (k == 1)
          extra_on_disk = extra;
      }
      return extra_on_disk;
    };
    block("whole process", &bench::worker_variant::pct);
    // The target is read on the threads the readings run on: the whole
    // process's difference is within the scheduler's idle polling noise.
    auto extra = block("caf.actor + caf.clock threads only", &bench::worker_variant::detached_pct);
    bool met = extra < 0.1;
    std::printf("   target: readings at 2 Hz cost a worker < 0.1 %% of one core (caf.actor + "
                "caf.clock, - ref, on disk): %s\n", met ? "met" : "MISSED");
    for (auto& p : cost.problems)
      std::printf("problem: %s\n", p.c_str());
    ok = ok && cost.problems.empty();
  }
  return ok ? 0 : 1;
}
