#pragma once

// What every implementation of the forward benchmark shares: the three cheap
// steps, the options, and how a row is measured.

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <filesystem>
#include <functional>
#include <stdlib.h>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace caf {
class actor_system;
} // namespace caf

namespace bench {

/// What every driver says of a wrong command line: its name, why, its usage;
/// then it exits with 2.
[[noreturn]] inline void refuse(const char* driver, const char* usage, const std::string& why) {
  std::fprintf(stderr, "%s: %s\n%s", driver, why.c_str(), usage);
  std::exit(2);
}

/// `text` as a positive whole number, or refuses naming option `opt`.
inline std::size_t positive(const char* driver, const char* usage, std::string_view opt,
                            const char* text) {
  char* end = nullptr;
  auto v = std::strtoull(text, &end, 10);
  if (end == text || *end != '\0' || v == 0) {
    std::string why{opt};
    why.append(" wants a positive whole number, not '").append(text).append("'");
    refuse(driver, usage, why);
  }
  return static_cast<std::size_t>(v);
}

/// Walks argv as `--option value` pairs, as every driver takes them: --help
/// (or -h) prints `usage` and exits 0; `take(option, value)` sets one and
/// returns false for an option it does not know, which is refused, as is an
/// option without its value.
inline void each_option(int argc, char** argv, const char* driver, const char* usage,
                        const std::function<bool(std::string_view, const char*)>& take) {
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    if (a == "--help" || a == "-h") {
      std::fputs(usage, stdout);
      std::exit(0);
    }
    if (i + 1 >= argc)
      refuse(driver, usage, "unknown option or missing value: " + std::string{a});
    if (!take(a, argv[i + 1]))
      refuse(driver, usage, "unknown option: " + std::string{a});
    ++i;
  }
}

/// A scratch directory for a driver's stores: `dir` when given (made if
/// missing), else a fresh one under /tmp named after `driver`, removed at
/// exit. `bad` reports what went wrong and does not return.
class scratch_dir {
public:
  scratch_dir(std::string& dir, const std::string& driver,
              const std::function<void(const std::string&)>& bad) {
    if (!dir.empty()) {
      std::error_code ec;
      std::filesystem::create_directories(dir, ec);
      if (ec)
        bad("cannot create --dir '" + dir + "': " + ec.message());
      return;
    }
    std::string pattern = "/tmp/" + driver + ".XXXXXX";
    if (!mkdtemp(pattern.data()))
      bad("cannot make a scratch directory under /tmp");
    dir = made_ = pattern;
  }
  ~scratch_dir() {
    if (!made_.empty()) {
      std::error_code ec;
      std::filesystem::remove_all(made_, ec);
    }
  }
  scratch_dir(const scratch_dir&) = delete;
  scratch_dir& operator=(const scratch_dir&) = delete;

private:
  std::string made_;
};


// -- the pipeline: three steps cheap enough that the runtime is what we time --

inline std::int64_t add_one(std::int64_t x) noexcept { return x + 1; }
inline std::int64_t times_three(std::int64_t x) noexcept { return x * 3; }
inline std::int64_t minus_two(std::int64_t x) noexcept { return x - 2; }

/// What a forward of `x` through the three steps gives.
constexpr std::int64_t expected(std::int64_t x) noexcept { return (x + 1) * 3 - 2; }

/// The sum of expected(i) for i in [0, n): every row checks its outputs by it.
constexpr std::int64_t expected_sum(std::int64_t n) noexcept {
  // sum(3i + 1) = 3 n (n - 1) / 2 + n
  return 3 * (n * (n - 1) / 2) + n;
}

/// Hides `x` from the optimiser: it must assume the value is read and changed.
inline void opaque(std::int64_t& x) noexcept { asm volatile("" : "+r"(x)); }

// -- options and results ------------------------------------------------------

struct options {
  std::size_t forwards = 10000;             ///< per repetition, blocking rows
  std::size_t throughput_forwards = 200000; ///< per repetition, throughput rows
  unsigned reps = 5;
  std::size_t in_flight = 256;
  // The actor systems the actor rows run in, one section of the table each.
  // Sharing is off by default only to keep the default run under a minute.
  bool stealing = true;     ///< soma::system_config as it is (tuned work stealing)
  bool caf_stealing = true; ///< work stealing with CAF's own poll defaults
  bool sharing = false;     ///< scheduler.policy = sharing
  std::size_t threads = 0; ///< scheduler.max-threads; 0 keeps soma's default
  std::vector<std::string> caf_args; ///< `--caf.*` options, given to every actor system
  std::string rows; ///< letters of the rows to run (a and b always run); empty: all
  std::string only; ///< of those, only the rows whose name holds this; empty: all

  /// Forwards per repetition in the idle row (d-idle): each follows a 1 ms
  /// sleep, so at most 1000 keep the row to a few seconds.
  [[nodiscard]] std::size_t idle_forwards() const { return std::min<std::size_t>(forwards, 1000); }

  [[nodiscard]] bool wants(char letter) const {
    return rows.empty() || rows.find(letter) != std::string::npos;
  }

  /// Whether the row named `name` runs: its letter (the name's first) is
  /// wanted, and its name holds `only`.
  [[nodiscard]] bool wants(std::string_view name) const {
    return !name.empty() && wants(name.front())
           && (only.empty() || name.find(only) != std::string_view::npos);
  }
};

using clock = std::chrono::steady_clock;

/// The name of row d-idle, which the header explains when it runs.
inline constexpr std::string_view idle_row = "d-idle soma forward at an idle graph";

/// One line of the table.
struct row {
  std::string name;
  std::vector<double> us;       ///< per-forward µs, one per repetition
  bool throughput = false;      ///< many forwards in flight: also print forwards/s
  /// Process CPU time (all threads, user + system) per wall second while the
  /// row ran, in % of one core, one per repetition; empty: not measured.
  std::vector<double> cpu_percent;
  std::vector<std::string> problems; ///< wrong outputs, missing facts: the run fails

  explicit row(std::string n, bool many = false) : name(std::move(n)), throughput(many) {}

  [[nodiscard]] double median() const { return median_of(us); }

  [[nodiscard]] static double median_of(std::vector<double> v) {
    if (v.empty())
      return 0;
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
  }
};

/// Runs `run(n)` once to warm up (n / 10 forwards, discarded) and then `reps`
/// times; `run` returns the time its n forwards took (setup excluded; rows
/// with a watcher actor include waiting until it counted every fact) and may
/// add to `r.problems`.
template <class Run>
void measure(row& r, unsigned reps, std::size_t n, Run&& run) {
  run(std::max<std::size_t>(n / 10, 1));
  for (unsigned i = 0; i < reps; ++i) {
    auto took = run(n);
    r.us.push_back(std::chrono::duration<double, std::micro>(took).count()
                   / static_cast<double>(n));
  }
}

// -- the implementations, one file each ---------------------------------------

/// (a) the three steps as direct calls.
row floor_calls(const options& opt);

#ifdef SOMA_HAVE_TBB
/// (c) oneTBB flow_graph: try_put + wait_for_all per forward, and all put
/// before one wait_for_all.
std::vector<row> tbb_flow(const options& opt);
#endif

/// (b) two event-based actors ping-ponging a number: per hop, per round trip.
std::vector<row> caf_pingpong(caf::actor_system& sys, const options& opt);

/// (d)-(g) soma's graph, blocking and with many forwards in flight.
std::vector<row> soma_forward(caf::actor_system& sys, const options& opt);

} // namespace bench
