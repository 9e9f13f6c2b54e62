// bench_health: what `soma health` costs (benchmarks/README.md, "health").
//
// A store holding --machines (100) machines' readings, --readings (600, the
// retention bound) each, and --runs (100) runs of --forwards (10,000)
// forwards each, written as a recorder leaves them (records with a
// summarised loss, fact blobs: tokenize here, embed on w1 and its trip,
// score here). So that the rules have something to find and walk back over:
// machines 0-2 stop reporting half-way (quiet), machine 3 is busy in every
// reading (busy_machine walks its whole history), run 7 broke one forward
// in ten near its end, and the last run's embed is four times slower.
//
//   a  floor: the reads any judgement of those rules must do: each
//      machine's latest reading (standing), each run's last 200 records and
//      last 100 fact blobs (tails), every study's trials
//   b  health::judge(store, shipped rules): a, the walk back over readings
//      the rules ask for, and the nine rules; target < 100 ms
//   c  peer: runs(store), one scan of every record: what a judgement that
//      read every forward would pay at least
//   d  soma --version (floor): a `soma` process started and reaped
//   e  soma health --store S: the command as a user runs it; target < 100 ms
//   f  health::replay(store, shipped rules) over the hour before the newest
//      write, a step a second (3,601 judgements as judge() would give them);
//      target < 1 s

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "soma/health/judge.hpp"
#include "soma/health/replay.hpp"
#include "soma/store/readers.hpp"
#include "soma/store/readings.hpp"
#include "soma/store/standing.hpp"
#include "soma/store/tails.hpp"
#include "soma/store/trials.hpp"
#include "writing.hpp"

namespace {

using clock_type = std::chrono::steady_clock;

constexpr std::int64_t t0_s = 1'800'000'000; // 2027-01-15T08:00:00Z
constexpr std::int64_t tick_us = 500'000;    // readings every 0.5 s

struct options {
  std::size_t machines = 100, readings = 600, runs = 100, forwards = 10000, reps = 9;
  std::string dir;
};

const char* usage = R"(usage: bench_health [options]
  --machines N   machines with readings in the store (100)
  --readings N   readings each (600, the retention bound)
  --runs N       runs in the store (100)
  --forwards N   forwards each (10000)
  --reps R       calls of every row after one warm-up; the median is shown (9)
  --dir DIR      where the store goes (default: a fresh directory under
                 /dev/shm, removed at exit: the store is written without
                 disk syncs, and read from memory either way)
)";

std::size_t positive(const char* name, const char* v) {
  char* end = nullptr;
  auto n = std::strtoull(v ? v : "", &end, 10);
  if (!v || *end != '\0' || n == 0) {
    std::fprintf(stderr, "bench_health: %s takes a whole number over 0\n%s", name, usage);
    std::exit(2);
  }
  return n;
}

options parse(int argc, char** argv) {
  options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    const char* v = i + 1 < argc ? argv[i + 1] : nullptr;
    std::size_t* counts[] = {&o.machines, &o.readings, &o.runs, &o.forwards, &o.reps};
    const char* names[] = {"--machines", "--readings", "--runs", "--forwards", "--reps"};
    bool known = false;
    for (std::size_t k = 0; k < std::size(names); ++k)
      if (a == names[k]) {
        *counts[k] = positive(names[k], v);
        known = true;
        ++i;
      }
    if (known)
      continue;
    if (a == "--dir" && v) {
      o.dir = v;
      ++i;
    } else if (a == "--help" || a == "-h") {
      std::fputs(usage, stdout);
      std::exit(0);
    } else {
      std::fprintf(stderr, "bench_health: unknown option '%s'\n%s", a.c_str(), usage);
      std::exit(2);
    }
  }
  return o;
}

void write_store(soma::store& s, const options& o) {
  for (std::size_t m = 0; m < o.machines; ++m)
    for (std::size_t k = 0; k < o.readings; ++k) {
      if (m < 3 && k > o.readings / 2)
        break; // quiet from half-way
      soma::reading r;
      r.id = "host" + std::to_string(m) + "-" + std::to_string(1000 + m);
      r.when_us = t0_s * 1'000'000 + static_cast<std::int64_t>(k) * tick_us;
      r.every_us = tick_us;
      r.busy = m == 3 ? 0.97 : 0.2 + 0.01 * static_cast<double>(m % 10);
      r.memory = 0.4;
      r.cores = 8;
      soma::put_reading(s, r);
    }
  for (std::size_t run = 0; run < o.runs; ++run) {
    std::vector<soma_test::written> fs;
    fs.reserve(o.forwards);
    auto embed = run + 1 == o.runs ? 4000 : 1000 + static_cast<std::int64_t>(run % 7) * 10;
    for (std::size_t i = 0; i < o.forwards; ++i) {
      soma::record r;
      r.state = run == 7 && i + 50 >= o.forwards && i % 10 == 0 ? soma::outcome::broke : soma::outcome::ok;
      r.nodes = 3;
      r.took_us = embed + 1500;
      // Runs one after another, ten forwards a second, the last ending with
      // the readings (so every run judged is as old as its own forwards).
      r.when_us = 1'000'000 * (t0_s + 300
                               - static_cast<std::int64_t>((o.runs - run) * (o.forwards / 10))
                               + static_cast<std::int64_t>(i / 10));
      r.summary = {{"loss.value", std::to_string(1.0 / (1.0 + static_cast<double>(i)))}};
      auto tok = soma::fact{"ran", {{"node", "tokenize"}, {"took_us", 200}}};
      auto emb = soma::fact{"ran", {{"node", "embed"}, {"took_us", embed}, {"host", "w1"}}};
      auto trip = soma::fact{"left", {{"host", "w1"}, {"took_us", embed + 300}}};
      auto score = soma::fact{"ran", {{"node", "score"}, {"took_us", 100}}};
      fs.push_back({r, {tok, emb, trip, score}});
    }
    soma_test::write_forwards(s, "run" + std::to_string(1000 + run), std::move(fs));
  }
}

struct row {
  std::string name;
  std::vector<double> ms;
  std::string note;
  [[nodiscard]] double median() const {
    auto v = ms;
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
  }
  [[nodiscard]] double spread() const { // half the range, against the median
    auto [lo, hi] = std::minmax_element(ms.begin(), ms.end());
    return ms.empty() || median() == 0 ? 0 : (*hi - *lo) / 2 / median() * 100;
  }
};

row measure(std::string name, std::size_t reps, const std::function<void()>& f) {
  row r{std::move(name), {}, {}};
  f(); // warm-up
  for (std::size_t i = 0; i < reps; ++i) {
    auto began = clock_type::now();
    f();
    r.ms.push_back(std::chrono::duration<double, std::milli>(clock_type::now() - began).count());
  }
  return r;
}

int run_command(const std::string& command) {
  int raw = std::system(command.c_str());
  return WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
}

} // namespace

int main(int argc, char** argv) {
  auto o = parse(argc, argv);
  bool own_dir = o.dir.empty();
  if (own_dir) {
    char tmpl[] = "/dev/shm/soma-bench-health-XXXXXX";
    if (!::mkdtemp(tmpl)) {
      std::fprintf(stderr, "bench_health: cannot make a directory under /dev/shm; give --dir\n");
      return 2;
    }
    o.dir = tmpl;
  }
  auto dir = o.dir + "/store";
  int status = 0;
  {
    auto began = clock_type::now();
    {
      soma::store w{dir, {.map_size = std::size_t{4} << 30, .expendable = true}};
      write_store(w, o);
    }
    auto wrote_s = std::chrono::duration<double>(clock_type::now() - began).count();
    soma::store s{dir, {.read_only = true}};
    std::printf("bench_health: %zu machines x %zu readings, %zu runs x %zu forwards (written in %.1f s); median of %zu\n\n",
                o.machines, o.readings, o.runs, o.forwards, wrote_s, o.reps);

    auto book = soma::health::rulebook::shipped();
    soma::health::judgement j;
    std::vector<row> rows;
    rows.push_back(measure("a  floor: standing, tails (200 records, 100 blobs), trials", o.reps, [&] {
      (void) soma::standing(s);
      (void) soma::tails(s, {.last = 200, .facts = 100});
      for (auto& st : soma::studies(s))
        (void) soma::trials(s, st.study.name);
    }));
    rows.push_back(measure("b  health::judge(store, shipped rules)", o.reps, [&] { j = soma::health::judge(s, book); }));
    std::size_t forwards = 0;
    rows.push_back(measure("c  peer: runs(store), every record read", o.reps, [&] {
      forwards = 0;
      for (auto& r : soma::runs(s))
        forwards += r.forwards;
    }));
    auto cli = std::string{SOMA_CLI_PROGRAM};
    rows.push_back(measure("d  soma --version (floor)", o.reps, [&] {
      if (run_command(cli + " --version >/dev/null") != 0)
        status = 1;
    }));
    rows.push_back(measure("e  soma health --store S", o.reps, [&] {
      if (run_command(cli + " health --store " + dir + " >/dev/null 2>&1") != 0)
        status = 1;
    }));

    soma::health::replayed replayed;
    auto to_us = j.now_us;
    rows.push_back(measure("f  health::replay, an hour at a step a second", o.reps, [&] {
      replayed = soma::health::replay(s, book, {.from_us = to_us - 3'600'000'000, .to_us = to_us});
    }));

    // What it found must be what the store was built to show.
    std::vector<std::string> problems;
    auto count = [&](const std::string& rule) {
      return std::count_if(j.opinions.begin(), j.opinions.end(),
                           [&](const soma::health::opinion& op) { return op.rule == rule; });
    };
    if (j.machines != o.machines || j.runs != o.runs)
      problems.push_back("judged " + std::to_string(j.machines) + " machines and " + std::to_string(j.runs) + " runs");
    if (o.machines > 3 && count("quiet_machine") != 3)
      problems.push_back("quiet_machine held " + std::to_string(count("quiet_machine")) + " opinions, not 3");
    if (o.machines > 3 && count("busy_machine") != 1)
      problems.push_back("busy_machine held " + std::to_string(count("busy_machine")) + " opinions, not 1");
    if (o.runs > 7 && count("broke_forwards") != 1)
      problems.push_back("broke_forwards held " + std::to_string(count("broke_forwards")) + " opinions, not 1");
    if (o.runs > 3 && count("slow_node") != 1)
      problems.push_back("slow_node held " + std::to_string(count("slow_node")) + " opinions, not 1");
    // The replay's last step is a judgement at TO: what holds there is what
    // judge says then, pending or firing alike.
    auto at_to = soma::health::judge(s, book, {.at_us = to_us});
    std::size_t open = 0;
    for (auto& ep : replayed.episodes)
      if (!ep.cleared_us) {
        ++open;
        auto same = std::find_if(at_to.opinions.begin(), at_to.opinions.end(), [&](auto& op) {
          return op.rule == ep.rule && op.subject == ep.subject
                 && (op.state == soma::health::status::firing) == ep.firing_us.has_value();
        });
        if (same == at_to.opinions.end())
          problems.push_back("replay holds " + ep.rule + " of " + ep.subject + " at TO; judge does not");
      }
    if (open != at_to.opinions.size())
      problems.push_back("replay holds " + std::to_string(open) + " episodes at TO, judge "
                         + std::to_string(at_to.opinions.size()) + " opinions");
    if (replayed.steps != 3601)
      problems.push_back("replay took " + std::to_string(replayed.steps) + " steps, not 3601");
    if (forwards != o.runs * o.forwards)
      problems.push_back("runs() counted " + std::to_string(forwards) + " forwards");

    std::printf("%-62s %10s %9s %8s  %s\n", "row", "median", "spread", "x a", "target");
    auto floor = rows[0].median();
    for (auto& r : rows) {
      std::string target;
      if (r.name[0] == 'b' || r.name[0] == 'e')
        target = std::string{"< 100 ms: "} + (r.median() < 100 ? "met" : "missed");
      if (r.name[0] == 'f')
        target = std::string{"< 1 s: "} + (r.median() < 1000 ? "met" : "missed");
      char ratio[32] = "";
      if (r.name[0] != 'd' && r.name[0] != 'a')
        std::snprintf(ratio, sizeof ratio, "%8.2f", r.median() / floor);
      std::printf("%-62s %7.2f ms  ±%5.1f%% %8s  %s\n", r.name.c_str(), r.median(), r.spread(), ratio, target.c_str());
    }
    std::printf("\nopinions found: %zu (%zu machines, %zu runs judged)\n", j.opinions.size(), j.machines, j.runs);
    std::size_t fired = 0;
    for (auto& ep : replayed.episodes)
      fired += ep.firing_us.has_value();
    std::printf("replayed: %zu steps, %zu episodes (%zu fired)\n", replayed.steps,
                replayed.episodes.size(), fired);
    for (auto& p : problems) {
      std::fprintf(stderr, "bench_health: wrong answer: %s\n", p.c_str());
      status = 1;
    }
  }
  if (own_dir)
    std::filesystem::remove_all(o.dir);
  return status;
}
