// bench_merged: the fleet view past one store. It writes the readings of
// --machines machines into --stores served stores (split evenly) and into
// one store holding them all, serves each with a soma-node, and times the
// soma command as a person runs it: `soma standing --store A,B,C` (merged
// on read) against `soma standing --store ONE`, and `soma health` of the
// one store (which reads every machine's last readings). Its last line is one JSON object (benchmarks/README.md,
// "bench_merged").
//
//   bench_merged [--stores 3] [--machines 10000] [--reps 7]

#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "server.hpp"
#include "soma/reading.hpp"
#include "soma/store/detail/readings_at.hpp"
#include "soma/store/readings.hpp"
#include "soma/store/store.hpp"

namespace {

using clock_type = std::chrono::steady_clock;

struct options {
  std::size_t stores = 3;
  std::size_t machines = 10000;
  int reps = 7;
};

bool parse(int argc, char** argv, options& o) {
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string k = argv[i];
    if (k == "--stores")
      o.stores = std::stoul(argv[i + 1]);
    else if (k == "--machines")
      o.machines = std::stoul(argv[i + 1]);
    else if (k == "--reps")
      o.reps = std::stoi(argv[i + 1]);
    else
      return false;
  }
  return argc % 2 == 1 && o.stores > 0 && o.machines >= o.stores && o.reps > 0;
}

// Machines `from` .. `to` - 1, three readings each at 0.5 s, written into
// the store at `dir` in one transaction.
void write_machines(const std::string& dir, std::size_t from, std::size_t to, std::int64_t t0) {
  soma::store s{dir};
  std::vector<soma::reading> rs;
  for (auto i = from; i < to; ++i)
    for (int k = 0; k < 3; ++k) {
      soma::reading r;
      r.id = "host-" + std::to_string(100000 + i);
      r.every_us = 500'000;
      r.when_us = t0 + k * 500'000;
      rs.push_back(r);
    }
  soma::detail::put_readings_at(s.env(), rs);
}

// The median milliseconds of `soma ARGS`, run `reps` times; -1 when a run
// failed.
double median_ms(const std::string& args, int reps) {
  std::vector<double> ms;
  for (int i = 0; i < reps; ++i) {
    auto began = clock_type::now();
    std::string cmd = SOMA_CLI_PROGRAM;
    cmd.append(" ").append(args).append(" >/dev/null 2>&1");
    int rc = std::system(cmd.c_str());
    if (rc == -1 || !WIFEXITED(rc) || WEXITSTATUS(rc) != 0)
      return -1;
    ms.push_back(std::chrono::duration<double, std::milli>(clock_type::now() - began).count());
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

} // namespace

int main(int argc, char** argv) {
  options o;
  if (!parse(argc, argv, o)) {
    std::fprintf(stderr, "usage: bench_merged [--stores N (3)] [--machines M (10000)] [--reps K (7)]\n");
    return 2;
  }
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  soma_bench::scratch_dir scratch{"bench-merged"};
  auto t0 = std::chrono::duration_cast<std::chrono::microseconds>(
              std::chrono::system_clock::now().time_since_epoch())
              .count();
  auto one_dir = scratch.path + "/one";
  write_machines(one_dir, 0, o.machines, t0);
  std::vector<std::unique_ptr<soma_bench::served_node>> servers;
  std::string several;
  for (std::size_t i = 0; i < o.stores; ++i) {
    auto dir = scratch.path + "/part" + std::to_string(i);
    write_machines(dir, o.machines * i / o.stores, o.machines * (i + 1) / o.stores, t0);
    servers.push_back(std::make_unique<soma_bench::served_node>(dir));
    several += (i ? "," : "") + servers.back()->address;
  }
  soma_bench::served_node one{one_dir};
  std::printf("%zu machines: one store %s; %zu stores %s\n", o.machines, one.address.c_str(),
              o.stores, several.c_str());
  auto standing_one = median_ms("standing --store " + one.address, o.reps);
  auto standing_several = median_ms("standing --store " + several, o.reps);
  auto health_one = median_ms("health --store " + one.address, o.reps);
  auto standing_local = median_ms("standing --store " + one_dir, o.reps);
  auto health_local = median_ms("health --store " + one_dir, o.reps);
  std::printf("soma standing: %.0f ms from one served store, %.0f ms merged from %zu (%.0f ms on "
              "the directory); soma health: %.0f ms from the served store (%.0f ms on the "
              "directory)\n",
              standing_one, standing_several, o.stores, standing_local, health_one, health_local);
  std::printf("{\"machines\": %zu, \"stores\": %zu, \"reps\": %d, \"standing_one_ms\": %.0f, "
              "\"standing_merged_ms\": %.0f, \"standing_local_ms\": %.0f, \"health_one_ms\": %.0f, "
              "\"health_local_ms\": %.0f}\n",
              o.machines, o.stores, o.reps, standing_one, standing_several, standing_local,
              health_one, health_local);
  return standing_several < 0 || standing_one < 0 ? 1 : 0;
}
