// The forward benchmark: one forward through three cheap nodes, timed in soma
// and next to its floors (direct calls, a bare CAF actor hop) and a peer
// (oneTBB flow_graph). See benchmarks/README.md for what each row means.

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <string_view>
#include <thread>

#include <caf/actor_system.hpp>
#include <caf/defaults.hpp>
#include <caf/scheduler/abstract_coordinator.hpp>

#include "bench.hpp"
#include "soma/system_config.hpp"

namespace {

using bench::options;
using bench::row;

// Issue 27's targets: a forward at an idle graph, a blocking forward with a
// counting actor, forwards in flight with a counting actor and with a
// recorder; and issue 37's, a blocking forward with no watcher.
constexpr double target_d_us = 4;
constexpr double target_idle_us = 15;
constexpr double target_e_us = 5;
constexpr double target_g_per_s = 400000;
constexpr double target_recorded_per_s = 250000;

const char* usage = R"(usage: bench_forward [options]
  --forwards N             forwards per repetition for blocking rows (10000);
                           throughput rows then run 20 x N unless set below
  --throughput-forwards N  forwards per repetition for throughput rows (200000)
  --reps R                 repetitions per row; the median is shown (5)
  --in-flight N            forwards the (g) driver keeps in flight (256)
  --policy P[,P...]        the actor systems the actor rows run in, one section
                           each, in this order (stealing,caf):
                             stealing  soma::system_config as it is: work
                                       stealing with soma's poll settings
                             caf       work stealing with CAF's own poll
                                       defaults (moderate-poll-attempts=500,
                                       aggressive-poll-attempts=100)
                             sharing   scheduler.policy=sharing
                             all       the three
  --threads N              scheduler.max-threads, every section (soma's
                           default: the cores)
  --rows LETTERS           only these rows, e.g. "dg" (a and b always run, as
                           the references; d includes d-idle, e includes e2)
  --only TEXT              of those, only the rows whose name holds TEXT, e.g.
                           --rows g --only recorder (to profile one row)
  --caf.KEY=VALUE          any CAF 0.17 option as --KEY=VALUE, for every
                           section, applied over the --policy settings, e.g.
                           --caf.work-stealing.moderate-sleep-duration=10us
)";

[[noreturn]] void bad(const std::string& why) {
  bench::refuse("bench_forward", usage, why);
}

std::size_t count(std::string_view opt, const char* text) {
  return bench::positive("bench_forward", usage, opt, text);
}

options parse(int argc, char** argv) {
  options opt;
  bool throughput_set = false;
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    if (a == "--help" || a == "-h") {
      std::fputs(usage, stdout);
      std::exit(0);
    }
    if (a.starts_with("--caf.")) {
      // CAF 0.17 names its options without the "caf." that 0.18 added.
      opt.caf_args.push_back("--" + std::string{a.substr(6)});
      continue;
    }
    if (i + 1 >= argc)
      bad("unknown option or missing value: " + std::string{a});
    const char* v = argv[++i];
    if (a == "--forwards") {
      opt.forwards = count(a, v);
    } else if (a == "--throughput-forwards") {
      opt.throughput_forwards = count(a, v);
      throughput_set = true;
    } else if (a == "--reps") {
      opt.reps = static_cast<unsigned>(count(a, v));
    } else if (a == "--in-flight") {
      opt.in_flight = count(a, v);
    } else if (a == "--threads") {
      opt.threads = count(a, v);
    } else if (a == "--rows") {
      opt.rows = v;
    } else if (a == "--only") {
      opt.only = v;
    } else if (a == "--policy") {
      opt.stealing = opt.caf_stealing = opt.sharing = false;
      std::string_view list = v;
      while (!list.empty()) {
        auto comma = list.find(',');
        auto p = list.substr(0, comma);
        list = comma == std::string_view::npos ? std::string_view{} : list.substr(comma + 1);
        if (p == "stealing") {
          opt.stealing = true;
        } else if (p == "caf") {
          opt.caf_stealing = true;
        } else if (p == "sharing") {
          opt.sharing = true;
        } else if (p == "all") {
          opt.stealing = opt.caf_stealing = opt.sharing = true;
        } else {
          bad("--policy takes stealing, caf, sharing or all (or a list of them, "
              "comma-separated), not '" + std::string{v} + "'");
        }
      }
      if (!opt.stealing && !opt.caf_stealing && !opt.sharing)
        bad("--policy names no actor system: '" + std::string{v} + "'");
    } else {
      bad("unknown option: " + std::string{a});
    }
  }
  if (!throughput_set && opt.forwards != options{}.forwards)
    opt.throughput_forwards = opt.forwards * 20;
  return opt;
}

struct section {
  std::string title;
  std::vector<row> rows;
  double b_hop_us = 0; ///< the hop floor these rows are compared with
};

enum class policy {
  stealing,     ///< soma::system_config as it is
  caf_stealing, ///< work stealing with CAF's own poll defaults
  sharing,      ///< scheduler.policy = sharing
};

// The actor rows under one policy, in an actor system of their own.
section actor_rows(const options& opt, policy pol) {
  soma::system_config cfg;
  if (pol == policy::caf_stealing) {
    // Explicitly, so that the section stays CAF's even when soma's defaults
    // move; everything else (max-threads included) stays soma's.
    cfg.set("work-stealing.moderate-poll-attempts", size_t{500});
    cfg.set("work-stealing.aggressive-poll-attempts", size_t{100});
  }
  if (pol == policy::sharing)
    cfg.set("scheduler.policy", caf::atom("sharing"));
  if (!opt.caf_args.empty()) {
    if (auto err = cfg.parse(opt.caf_args))
      bad("CAF rejected the --caf options: " + to_string(err));
    if (cfg.cli_helptext_printed)
      std::exit(0);
  }
  if (opt.threads)
    cfg.set("scheduler.max-threads", opt.threads);
  caf::actor_system sys{cfg};
  section s;
  // What the system actually ran with, --caf options included.
  namespace ws = caf::defaults::work_stealing;
  bool sharing = caf::get_or(cfg, "scheduler.policy", caf::atom("stealing"))
                 == caf::atom("sharing");
  const char* name = pol == policy::stealing       ? "stealing"
                     : pol == policy::caf_stealing ? "caf"
                                                   : "sharing";
  s.title = std::string{"actors, --policy "} + name + ": "
            + (sharing ? "sharing" : "work stealing");
  if (!sharing)
    s.title += ", polls moderate "
               + std::to_string(caf::get_or(cfg, "work-stealing.moderate-poll-attempts",
                                            ws::moderate_poll_attempts))
               + " aggressive "
               + std::to_string(caf::get_or(cfg, "work-stealing.aggressive-poll-attempts",
                                            ws::aggressive_poll_attempts));
  s.title += ", " + std::to_string(sys.scheduler().num_workers()) + " workers";
  s.rows = bench::caf_pingpong(sys, opt);
  s.b_hop_us = s.rows.front().median();
  for (auto& r : bench::soma_forward(sys, opt))
    s.rows.push_back(std::move(r));
  return s;
}

std::string us_text(double us) {
  char buf[32];
  std::snprintf(buf, sizeof buf, us < 0.1 ? "%.4f" : us < 100 ? "%.2f" : "%.0f", us);
  return buf;
}

std::string ratio_text(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, x < 10 ? "%.2f" : "%.0f", x);
  return buf;
}

void print(const std::vector<section>& sections, double a_us, double b_hop_default) {
  std::printf("%-42s %12s %8s %9s %9s %12s %7s\n", "row", "us/forward", "spread", "x a",
              "x b hop", "forwards/s", "% core");
  for (auto& s : sections) {
    std::printf("-- %s\n", s.title.c_str());
    double b = s.b_hop_us > 0 ? s.b_hop_us : b_hop_default;
    for (auto& r : s.rows) {
      auto m = r.median();
      auto [lo, hi] = std::minmax_element(r.us.begin(), r.us.end());
      double spread = m > 0 ? (*hi - *lo) / 2 / m * 100 : 0;
      char spread_buf[16];
      std::snprintf(spread_buf, sizeof spread_buf, "+-%.0f%%", spread);
      std::string per_s = r.throughput ? std::to_string(static_cast<long long>(1e6 / m)) : "";
      char core_buf[16] = "";
      if (!r.cpu_percent.empty())
        std::snprintf(core_buf, sizeof core_buf, "%.1f", row::median_of(r.cpu_percent));
      std::printf("%-42s %12s %8s %9s %9s %12s %7s\n", r.name.c_str(), us_text(m).c_str(),
                  spread_buf, ratio_text(m / a_us).c_str(),
                  b > 0 ? ratio_text(m / b).c_str() : "-", per_s.c_str(), core_buf);
    }
  }
}

// A missed target is a finding to report, not a failed run: only wrong
// outputs or missing facts fail it.
void print_targets(const std::vector<section>& sections) {
  std::printf("\ntargets:\n");
  for (auto& s : sections)
    for (auto& r : s.rows) {
      auto m = r.median();
      if (r.name.starts_with("d  "))
        std::printf("  (d) at most %.0f us per forward: %9.2f us  %-6s [%s]\n", target_d_us, m,
                    m <= target_d_us ? "met" : "MISSED", s.title.c_str());
      else if (r.name.starts_with("d-idle"))
        std::printf("  (d-idle) at most %.0f us per forward: %9.2f us  %-6s [%s]\n",
                    target_idle_us, m, m <= target_idle_us ? "met" : "MISSED", s.title.c_str());
      else if (r.name.starts_with("e  "))
        std::printf("  (e) at most %.0f us per forward: %9.2f us  %-6s [%s]\n", target_e_us, m,
                    m <= target_e_us ? "met" : "MISSED", s.title.c_str());
      else if (r.name.starts_with("g  ") && r.name.find("counting actor") != std::string::npos)
        std::printf("  (g) at least %.0f forwards/s: %9.0f /s  %-6s [%s]\n", target_g_per_s,
                    1e6 / m, 1e6 / m >= target_g_per_s ? "met" : "MISSED", s.title.c_str());
      else if (r.name.starts_with("g  ") && r.name.ends_with("recorder"))
        std::printf("  (g) recorded, at least %.0f forwards/s: %9.0f /s  %-6s [%s]\n",
                    target_recorded_per_s, 1e6 / m,
                    1e6 / m >= target_recorded_per_s ? "met" : "MISSED", s.title.c_str());
    }
}

} // namespace

int main(int argc, char** argv) {
  auto opt = parse(argc, argv);
  for (auto& a : opt.caf_args)
    std::printf("CAF option %s\n", a.c_str());
  std::printf("forward through 3 cheap int64 nodes (x+1, x*3, x-2): %zu forwards/rep blocking, "
              "%zu throughput, %u reps (median shown), %zu in flight, %u cores\n"
              "spread: half the range over reps, in %% of the median; x b hop: per-forward "
              "time over one actor hop of the same section (a forward is 4 hops); rows with a "
              "counting actor are timed until it has counted every fact\n",
              opt.forwards, opt.throughput_forwards, opt.reps, opt.in_flight,
              std::thread::hardware_concurrency());
  if (opt.wants(bench::idle_row))
    std::printf("d-idle: %zu forwards/rep, each after a 1 ms sleep (untimed); %% core: process "
                "CPU time per wall second over its loop, sleeps included (median over reps)\n",
                opt.idle_forwards());
  std::printf("\n");
  std::fflush(stdout);
  std::vector<section> sections;
  try {
    // Floors and the peer first, while no actor system's workers exist.
    section plain;
    plain.title = "no actors";
    plain.rows.push_back(bench::floor_calls(opt));
#ifdef SOMA_HAVE_TBB
    if (opt.wants('c'))
      for (auto& r : bench::tbb_flow(opt))
        plain.rows.push_back(std::move(r));
#endif
    sections.push_back(std::move(plain));
    if (opt.stealing)
      sections.push_back(actor_rows(opt, policy::stealing));
    if (opt.caf_stealing)
      sections.push_back(actor_rows(opt, policy::caf_stealing));
    if (opt.sharing)
      sections.push_back(actor_rows(opt, policy::sharing));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_forward: %s\n", e.what());
    return 1;
  }
  if (!opt.only.empty()) {
    // a and b always run; something else must have, or --only named nothing.
    std::size_t others = 0;
    for (auto& s : sections)
      for (auto& r : s.rows)
        others += r.name[0] != 'a' && r.name[0] != 'b';
    if (others == 0)
      bad("--only '" + opt.only + "' is in the name of no row that --rows '" + opt.rows
          + "' runs besides a and b, which always run (the names are in the first column of a "
            "run without --only)");
  }
  double a_us = sections.front().rows.front().median();
  double b_default = sections.size() > 1 ? sections[1].b_hop_us : 0;
  print(sections, a_us, b_default);
  print_targets(sections);
  bool ok = true;
  for (auto& s : sections)
    for (auto& r : s.rows)
      for (auto& p : r.problems) {
        std::fprintf(stderr, "bench_forward: %s [%s]: %s\n", r.name.c_str(), s.title.c_str(),
                     p.c_str());
        ok = false;
      }
  return ok ? 0 : 1;
}
