// The drawing benchmark: progress over a run of --forwards forwards (read
// the curve, draw, write SVG and PNG) next to reading the curve alone; and
// soma::live's cost per fact through its actor next to its tally alone.
// See benchmarks/README.md for each row.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <caf/actor_system.hpp>
#include <caf/send.hpp>

#include "../forward/bench.hpp"
#include "soma/draw/progress.hpp"
#include "soma/live.hpp"
#include "soma/store/detail/environment.hpp"
#include "soma/store/keys.hpp"
#include "soma/store/readers.hpp"
#include "soma/store/detail/record.hpp"
#include "soma/system_config.hpp"

namespace {

const char* usage = R"(usage: bench_draw [options]
  --forwards N   forwards in the recorded run progress draws (100000)
  --facts N      facts told to live per repetition (1000000)
  --reps R       repetitions of every row after one warm-up; the median is
                 shown (5)
  --dir DIR      where the store goes (default: a fresh directory under
                 /tmp, removed at exit)
)";

constexpr double target_progress_ms = 200, target_fact_us = 1;

struct options {
  std::size_t forwards = 100000;
  std::size_t facts = 1000000;
  std::size_t reps = 5;
  std::string dir;
};

options parse(int argc, char** argv) {
  options opt;
  bench::each_option(argc, argv, "bench_draw", usage, [&](std::string_view a, const char* v) {
    if (a == "--forwards")
      opt.forwards = bench::positive("bench_draw", usage, a, v);
    else if (a == "--facts")
      opt.facts = bench::positive("bench_draw", usage, a, v);
    else if (a == "--reps")
      opt.reps = bench::positive("bench_draw", usage, a, v);
    else if (a == "--dir")
      opt.dir = v;
    else
      return false;
    return true;
  });
  return opt;
}

using clock_type = std::chrono::steady_clock;

double median(std::vector<double> xs) {
  std::sort(xs.begin(), xs.end());
  return xs[xs.size() / 2];
}

// Runs `f` once to warm up, then `reps` times; the median seconds.
double timed(std::size_t reps, const std::function<void()>& f) {
  f();
  std::vector<double> s;
  for (std::size_t r = 0; r < reps; ++r) {
    auto t0 = clock_type::now();
    f();
    s.push_back(std::chrono::duration<double>(clock_type::now() - t0).count());
  }
  return median(s);
}

// A run as a recorder leaves it: records summarising loss, fact blobs.
void record(soma::store& s, std::size_t n) {
  s.env().write([&](MDB_txn* txn, auto& dbi) {
    s.env().put(txn, dbi(soma::detail::db::meta), soma::detail::meta_key("long"),
                soma::detail::encode_run_meta({{"loss"}, std::nullopt}, soma::detail::meta_key("long")));
    for (std::uint64_t i = 0; i < n; ++i) {
      auto loss = 1.5 * std::pow(0.9999, static_cast<double>(i)) + 0.2 + 0.05 * std::sin(i * 0.7);
      soma::record r{i, soma::outcome::ok, 3, 20, 1000, {{"loss.value", soma::text(loss)}}};
      auto key = soma::detail::record_key("long", i);
      s.env().put(txn, dbi(soma::detail::db::records), key, soma::detail::encode_record(r, key));
      std::vector<soma::fact> told{{"ran", {{"node", "a"}, {"took_us", 5}}},
                                   {"finished", {{"took_us", 20}}},
                                   {"loss", {{"value", loss}}}};
      s.env().put(txn, dbi(soma::detail::db::facts), key, soma::detail::encode_facts(told, key));
    }
  });
}

// The facts of forward i as an engine and a trainer tell them: 5 a forward.
std::vector<soma::fact> forward_facts(std::uint64_t i) {
  return {{"ran", {{"node", "tokenize"}, {"began_us", 3}, {"took_us", 12}}},
          {"ran", {{"node", "embed"}, {"began_us", 15}, {"took_us", 1}}},
          {"ran", {{"node", "score"}, {"began_us", 17}, {"took_us", 1}}},
          {"finished", {{"took_us", 18}}},
          {"loss", {{"value", 1.0 / static_cast<double>(i + 1)}}}};
}

void line(const char* name, double value, const char* unit, double floor, const char* target) {
  std::printf("%-46s %12.3f %-7s %8.2f  %s\n", name, value, unit, value / floor, target);
}

} // namespace

int main(int argc, char** argv) {
  auto opt = parse(argc, argv);
  bench::scratch_dir scratch{opt.dir, "bench_draw", [](const std::string& why) {
                               bench::refuse("bench_draw", usage, why);
                             }};
  soma::store s{opt.dir + "/store"};
  record(s, opt.forwards);
  std::printf("bench_draw: progress over %zu forwards; live told %zu facts; median of %zu\n\n",
              opt.forwards, opt.facts, opt.reps);
  std::printf("%-46s %12s %-7s %8s  %s\n", "row", "median", "", "x floor", "target");

  // -- progress --------------------------------------------------------------
  std::size_t points = 0, svg_bytes = 0, png_bytes = 0;
  double a = timed(opt.reps, [&] { points = soma::curve(s, "long").size(); });
  double b = timed(opt.reps, [&] { (void)soma::draw::progress(s, "long"); });
  auto series = soma::curve(s, "long");
  double b2 = timed(opt.reps, [&] { (void)soma::draw::progress(series, "long", "loss"); });
  double c = timed(opt.reps, [&] { svg_bytes = soma::draw::progress(s, "long").svg().size(); });
  double d = timed(opt.reps, [&] { png_bytes = soma::draw::progress(s, "long").png().size(); });
  line("a  read the curve (floor)", a * 1e3, "ms", a * 1e3, "");
  line("b  progress(store, run): read + figure", b * 1e3, "ms", a * 1e3,
       b * 1e3 < target_progress_ms ? "< 200 ms: met" : "< 200 ms: MISSED");
  line("b2 progress(series): figure only", b2 * 1e3, "ms", a * 1e3, "");
  line("c  progress(store, run).svg()", c * 1e3, "ms", a * 1e3,
       c * 1e3 < target_progress_ms ? "< 200 ms: met" : "< 200 ms: MISSED");
  line("d  progress(store, run).png()", d * 1e3, "ms", a * 1e3,
       d * 1e3 < target_progress_ms ? "< 200 ms: met" : "< 200 ms: MISSED");

  // -- live --------------------------------------------------------------------
  std::vector<std::vector<soma::fact>> told;
  for (std::uint64_t i = 0; i < 1000; ++i)
    told.push_back(forward_facts(i));
  auto forwards = opt.facts / 5;
  double e = timed(opt.reps, [&] {
    soma::draw::tally t;
    for (std::uint64_t i = 0; i < forwards; ++i)
      for (auto& f : told[i % told.size()])
        t.add(i, f);
    if (t.forwards() != forwards)
      std::printf("problem: the tally counted %llu forwards\n",
                  static_cast<unsigned long long>(t.forwards()));
  });
  soma::system_config cfg;
  caf::actor_system system{cfg};
  double f = timed(opt.reps, [&] {
    soma::live live{system};
    for (std::uint64_t i = 0; i < forwards; ++i)
      for (auto& x : told[i % told.size()])
        caf::anon_send(live.actor(), soma::forward_fact{i, x});
    auto t = live.snapshot(); // waits until every fact is tallied
    if (t.facts() != forwards * 5)
      std::printf("problem: live tallied %llu facts\n", static_cast<unsigned long long>(t.facts()));
  });
  double per_e = e / static_cast<double>(forwards * 5) * 1e6;
  double per_f = f / static_cast<double>(forwards * 5) * 1e6;
  line("e  tally.add, per fact (floor)", per_e, "µs", per_e, "");
  line("f  live: fact sent to its actor and tallied", per_f, "µs", per_e,
       per_f < target_fact_us ? "< 1 µs: met" : "< 1 µs: MISSED");
  std::printf("\n(the figure drew %zu points; SVG %zu bytes, PNG %zu bytes)\n", points, svg_bytes,
              png_bytes);
}
