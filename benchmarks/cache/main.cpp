// The cache benchmark: a node costing 1 ms, frozen and cached, recalled from
// its store for a small value and for 1 MiB values, next to the memcpy of the
// same bytes (the floor) and to running the node again; then the miss (ran +
// kept) and the pieces of a recall. See benchmarks/README.md for each row.

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <string>
#include <string_view>
#include <thread>

#include <caf/actor_system.hpp>

#include "bench.hpp"
#include "soma/system_config.hpp"

namespace {

using bench::cache_options;
using bench::cache_row;
using bench::row;
using bench::section;

constexpr double target_small_us = 10;

const char* usage = R"(usage: bench_cache [options]
  --recalls N    small-value recalls per repetition (10000); the small
                 pieces (p) run 10 x N, its memcpy floor 100 x N
  --big N        1 MiB recalls, pieces and memcpys per repetition (1000)
  --computes N   forwards per repetition of the rows that run the 1 ms node:
                 uncached (b) and missed (e) (100)
  --reps R       repetitions of every row after one warm-up of N/10; the
                 median is shown (5)
  --dir DIR      where the store goes (default: a fresh directory under
                 /tmp, removed at exit)
  --rows LETTERS only these rows, e.g. "cp": a (memcpy floors, always),
                 b (uncached), c (recall), p (pieces), e (miss)
)";

[[noreturn]] void bad(const std::string& why) {
  bench::refuse("bench_cache", usage, why);
}

std::size_t count(std::string_view opt, const char* text) {
  return bench::positive("bench_cache", usage, opt, text);
}

cache_options parse(int argc, char** argv) {
  cache_options opt;
  bench::each_option(argc, argv, "bench_cache", usage, [&](std::string_view a, const char* v) {
    if (a == "--recalls")
      opt.recalls = count(a, v);
    else if (a == "--big")
      opt.big = count(a, v);
    else if (a == "--computes")
      opt.computes = count(a, v);
    else if (a == "--reps")
      opt.reps = static_cast<unsigned>(count(a, v));
    else if (a == "--dir")
      opt.dir = v;
    else if (a == "--rows")
      opt.rows = v;
    else
      return false;
    return true;
  });
  return opt;
}


void progress(const std::string& what) {
  std::fprintf(stderr, "bench_cache: %s\n", what.c_str());
}

std::string us_text(double us) {
  char buf[32];
  std::snprintf(buf, sizeof buf, us < 0.1 ? "%.4f" : us < 100 ? "%.2f" : "%.0f", us);
  return buf;
}

std::string ratio_text(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, x < 10 ? "%.2f" : x < 10000 ? "%.0f" : "%.2g", x);
  return buf;
}

std::string spread_text(const std::vector<double>& xs) {
  auto m = row::median_of(xs);
  if (xs.empty() || m <= 0)
    return "";
  auto [lo, hi] = std::minmax_element(xs.begin(), xs.end());
  char buf[16];
  std::snprintf(buf, sizeof buf, "+-%.0f%%", (*hi - *lo) / 2 / m * 100);
  return buf;
}

const cache_row* find(const section& s, std::string_view prefix) {
  for (auto& r : s.rows)
    if (r.name.starts_with(prefix))
      return &r;
  return nullptr;
}

double median(const cache_row* r) { return r ? r->median() : 0; }

void print(const std::vector<section>& sections) {
  std::printf("%-50s %10s %7s %9s %8s %9s %9s %8s\n", "row", "us/op", "spread", "x memcpy",
              "x node", "took_us", "took/cpy", "faults");
  for (auto& s : sections) {
    std::printf("-- %s: %zu bytes raw, %zu encoded\n", s.title.c_str(), s.raw_bytes,
                s.encoded_bytes);
    double floor = median(find(s, "a  "));
    double node = median(find(s, "b  "));
    for (auto& r : s.rows) {
      auto m = r.median();
      std::string x_floor = r.bytes && floor > 0 ? ratio_text(m / floor) : "-";
      std::string x_node = node > 0 ? ratio_text(m / node) : "-";
      std::string took, took_floor;
      if (!r.took.empty()) {
        auto t = row::median_of(r.took);
        took = us_text(t);
        took_floor = floor > 0 ? ratio_text(t / floor) : "-";
      }
      char faults[32] = "";
      if (!r.faults.empty())
        std::snprintf(faults, sizeof faults, "%.1f", row::median_of(r.faults));
      std::printf("%-50s %10s %7s %9s %8s %9s %9s %8s\n", r.name.c_str(),
                  r.us.empty() ? "-" : us_text(m).c_str(), spread_text(r.us).c_str(),
                  x_floor.c_str(), x_node.c_str(), took.c_str(), took_floor.c_str(), faults);
    }
  }
}

// A missed target is a finding to report, not a failed run: only wrong
// outputs or facts fail it.
void print_targets(const std::vector<section>& sections) {
  std::printf("\ntargets:\n");
  auto verdict = [](double us) { return us < target_small_us ? "met" : "MISSED"; };
  for (auto& s : sections) {
    auto* c = find(s, "c  recall");
    auto* steps = find(s, "p  recall's steps");
    double floor = median(find(s, "a  "));
    double node = median(find(s, "b  "));
    if (s.raw_bytes < (std::size_t{64} << 10)) {
      if (c) {
        std::printf("  a recall of a small value under %.0f us, the blocking forward: %s us  %s\n",
                    target_small_us, us_text(c->median()).c_str(), verdict(c->median()));
        auto t = row::median_of(c->took);
        std::printf("  a recall of a small value under %.0f us, its recalled took_us: %s us  %s\n",
                    target_small_us, us_text(t).c_str(), verdict(t));
      }
      if (steps)
        std::printf("  (the recall's steps without actors, p: %s us)\n",
                    us_text(steps->median()).c_str());
    } else if (floor > 0) {
      std::printf("  [%s] a 1 MiB recall bounded by the memcpy of the same bytes (%s us):\n",
                  s.title.c_str(), us_text(floor).c_str());
      if (c)
        std::printf("    recalled took_us / memcpy = %s, blocking forward / memcpy = %s\n",
                    ratio_text(row::median_of(c->took) / floor).c_str(),
                    ratio_text(c->median() / floor).c_str());
      if (steps)
        std::printf("    the recall's steps without actors (p) / memcpy = %s\n",
                    ratio_text(steps->median() / floor).c_str());
    }
    if (c && node > 0)
      std::printf("  [%s] a recall against running the 1 ms node again: %s us vs %s us, "
                  "%s x faster\n",
                  s.title.c_str(), us_text(c->median()).c_str(), us_text(node).c_str(),
                  ratio_text(node / c->median()).c_str());
  }
}

} // namespace

int main(int argc, char** argv) {
  auto opt = parse(argc, argv);
  bench::scratch_dir scratch{opt.dir, "bench_cache", [](const std::string& why) { bad(why); }};
  std::printf("cache: one node costing 1 ms (busy), .frozen().cached(), forwarded blocking from "
              "one thread with a callable watcher reading its facts;\n%u reps after a warm-up of "
              "N/10 (median shown); small: %zu recalls, %zu pieces; 1 MiB: %zu recalls and "
              "pieces; %zu forwards of the 1 ms node; %u cores; store under %s\n"
              "spread: half the range over reps, in %% of the median; x memcpy: over the "
              "section's memcpy (a); x node: over the uncached forward (b);\ntook_us: the mean "
              "took_us of the row's recalled (c) or kept (e) facts, whole us (truncated); "
              "took/cpy: that over a;\nfaults: minor page faults of the process per op (all "
              "threads, untimed checks included)\n\n",
              opt.reps, opt.recalls, opt.recalls * 10, opt.big, opt.computes,
              std::thread::hardware_concurrency(), opt.dir.c_str());
  std::fflush(stdout);

  std::vector<section> sections;
  try {
    // The floors first, while no actor system's workers exist.
    progress("a  memcpy floors");
    auto small_floor = bench::memcpy_floor(bench::small_value::raw_bytes, opt.recalls * 100, opt);
    auto vector_floor = bench::memcpy_floor(bench::big_vector::raw_bytes, opt.big, opt);
    auto text_floor = bench::memcpy_floor(bench::big_text::raw_bytes, opt.big, opt);

    soma::system_config cfg;
    caf::actor_system sys{cfg};
    auto with_floor = [&](section s, std::vector<cache_row>& floor) {
      s.rows.insert(s.rows.begin(), floor.begin(), floor.end());
      sections.push_back(std::move(s));
    };
    progress(bench::small_value::title);
    with_floor(bench::soma_small(sys, opt), small_floor);
    progress(bench::big_vector::title);
    with_floor(bench::soma_big_vector(sys, opt), vector_floor);
    progress(bench::big_text::title);
    with_floor(bench::soma_big_text(sys, opt), text_floor);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_cache: %s\n", e.what());
    return 1;
  }
  print(sections);
  print_targets(sections);
  bool ok = true;
  for (auto& s : sections)
    for (auto& r : s.rows)
      for (auto& p : r.problems) {
        std::fprintf(stderr, "bench_cache: %s [%s]: %s\n", r.name.c_str(), s.title.c_str(),
                     p.c_str());
        ok = false;
      }
  return ok ? 0 : 1;
}
