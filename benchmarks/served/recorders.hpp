#pragma once

// bench_served --record recorders beside a served store, for the benchmarks
// that write while they measure (bench_hosts, bench_window): started as
// processes of their own, and what each said it did.

#include <cstdio>
#include <fstream>
#include <string>

#include "server.hpp"

namespace soma_bench {

/// A `bench_served --record` recorder into `address`: `run`, 1,000 forwards
/// a second for `seconds`, a flush every 100, its lines into `out`. Its pid,
/// or -1.
inline pid_t start_recorder(const std::string& address, const std::string& run, double seconds,
                            const std::string& out) {
  return spawn({SOMA_BENCH_SERVED, "--record", address, run, "1000", std::to_string(seconds), "100"},
               out);
}

/// What a recorder said it did (its last line, printed by run_recorder in
/// main.cpp): forwards made, flushes confirmed and failed, how long a flush
/// took to be confirmed (ms), and the forwards the server confirmed
/// (0 .. confirmed - 1). `said` is false when no such line was printed.
struct recorder_said {
  bool said = false;
  unsigned long long made = 0, flushes = 0, failed = 0, confirmed = 0;
  double p50 = 0, p99 = 0, max = 0;
};

inline recorder_said read_recorder(const std::string& file) {
  recorder_said out;
  std::ifstream in(file);
  for (std::string line; std::getline(in, line);) {
    auto at = line.find(": ");
    recorder_said r;
    if (line.starts_with("recorder ") && at != std::string::npos
        && std::sscanf(line.c_str() + at + 2,
                       "%llu forwards, %llu flushes confirmed, %llu failed; confirm ms p50 %lf p99 %lf "
                       "max %lf; confirmed through %llu",
                       &r.made, &r.flushes, &r.failed, &r.p50, &r.p99, &r.max, &r.confirmed)
             == 7) {
      r.said = true;
      out = r;
    }
  }
  return out;
}

} // namespace soma_bench
