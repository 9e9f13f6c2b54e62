// bench_real_nodes: real soma-node processes against one running served
// store. It starts a soma-node --serve-store, then N soma-nodes at once,
// each `--store soma://... --reporting S`, and waits (at most --within
// seconds) until the store holds a reading of every one. Then it stops them
// with SIGTERM, each within 5 s (SIGKILL past it, counted). Its last line
// is one JSON object (benchmarks/README.md, "bench_real_nodes").
//
//   bench_real_nodes [--nodes 150] [--reporting 0.5] [--within 120]

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "server.hpp"
#include "soma/store/standing.hpp"
#include "soma/store/store.hpp"

namespace {

using clock_type = std::chrono::steady_clock;
using namespace std::chrono_literals;

struct options {
  std::size_t nodes = 150;
  double reporting = 0.5;
  double within_s = 120;
};

bool parse(int argc, char** argv, options& o) {
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string k = argv[i];
    if (k == "--nodes")
      o.nodes = std::stoul(argv[i + 1]);
    else if (k == "--reporting")
      o.reporting = std::stod(argv[i + 1]);
    else if (k == "--within")
      o.within_s = std::stod(argv[i + 1]);
    else
      return false;
  }
  return argc % 2 == 1 && o.nodes > 0 && o.reporting > 0 && o.within_s > 0;
}

// A soma-node reporting into `address`, its output to /dev/null.
pid_t start_node(const std::string& address, double reporting) {
  return soma_bench::spawn({SOMA_NODE_PROGRAM, "--store", address, "--reporting",
                            std::to_string(reporting), "--listen", "127.0.0.1:0"},
                           "", "/dev/null");
}

// Stops every node with SIGTERM; one still there after 5 s is killed.
// Returns how many had to be.
std::size_t stop_all(const std::vector<pid_t>& pids) {
  for (auto pid : pids)
    if (pid > 0)
      ::kill(pid, SIGTERM);
  auto until = clock_type::now() + 5s;
  std::size_t killed = 0;
  for (auto pid : pids) {
    if (pid <= 0)
      continue;
    for (;;) {
      if (::waitpid(pid, nullptr, WNOHANG) == pid)
        break;
      if (clock_type::now() >= until) {
        ::kill(pid, SIGKILL);
        ::waitpid(pid, nullptr, 0);
        ++killed;
        break;
      }
      std::this_thread::sleep_for(10ms);
    }
  }
  return killed;
}

} // namespace

int main(int argc, char** argv) {
  options o;
  if (!parse(argc, argv, o)) {
    std::fprintf(stderr, "usage: bench_real_nodes [--nodes N (150)] [--reporting S (0.5)] "
                         "[--within S (120)]\n");
    return 2;
  }
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  soma_bench::scratch_dir scratch{"bench-real-nodes"};
  const std::string& root = scratch.path;
  auto dir = root + "/served";
  soma_bench::served_node srv{dir};
  std::printf("server %s (pid %d); starting %zu soma-nodes at once\n", srv.address.c_str(),
              srv.pid, o.nodes);
  auto cpu0 = soma_bench::sample(srv.pid);
  auto began = clock_type::now();
  std::vector<pid_t> pids;
  for (std::size_t i = 0; i < o.nodes; ++i)
    pids.push_back(start_node(srv.address, o.reporting));
  auto started = static_cast<std::size_t>(std::count_if(pids.begin(), pids.end(), [](pid_t p) { return p > 0; }));
  auto spawned_ms = std::chrono::duration<double, std::milli>(clock_type::now() - began).count();

  // Until every one has a reading in the store, read on this host.
  soma::store local{dir, {.read_only = true}};
  std::size_t reported = 0, max_threads = 0;
  double first_ms = -1, half_ms = -1, all_ms = -1, max_rss = 0;
  auto deadline = began + std::chrono::duration<double>(o.within_s);
  while (clock_type::now() < deadline) {
    try {
      reported = soma::standing(local).size();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "standing: %s\n", e.what());
    }
    auto ms = std::chrono::duration<double, std::milli>(clock_type::now() - began).count();
    if (reported > 0 && first_ms < 0)
      first_ms = ms;
    if (reported * 2 >= o.nodes && half_ms < 0)
      half_ms = ms;
    auto s = soma_bench::sample(srv.pid);
    max_threads = std::max<std::size_t>(max_threads, static_cast<std::size_t>(s.threads));
    max_rss = std::max(max_rss, s.rss_mb);
    if (reported >= o.nodes) {
      all_ms = ms;
      break;
    }
    std::this_thread::sleep_for(50ms);
  }
  auto elapsed = std::chrono::duration<double>(clock_type::now() - began).count();
  auto cpu1 = soma_bench::sample(srv.pid);
  // A few seconds of steady reporting, then the server's cost of it.
  double steady_cores = -1;
  if (all_ms >= 0) {
    auto c0 = soma_bench::sample(srv.pid);
    std::this_thread::sleep_for(5s);
    steady_cores = (soma_bench::sample(srv.pid).cpu_s - c0.cpu_s) / 5.0;
  }
  auto killed = stop_all(pids);
  std::printf("%zu of %zu soma-nodes started (in %.0f ms), %zu reported within %.0f s; "
              "%zu needed SIGKILL after 5 s of SIGTERM\n",
              started, o.nodes, spawned_ms, reported, o.within_s, killed);
  std::printf("{\"nodes\": %zu, \"started\": %zu, \"reported\": %zu, \"all_reported\": %s, "
              "\"first_ms\": %.0f, \"half_ms\": %.0f, \"all_ms\": %.0f, \"reporting\": %g, "
              "\"server_cpu_cores_to_all\": %.3f, \"server_cpu_cores_steady\": %.3f, "
              "\"server_threads\": %zu, \"server_rss_mb\": %.0f, \"killed_after_sigterm\": %zu}\n",
              o.nodes, started, reported, reported >= o.nodes ? "true" : "false", first_ms,
              half_ms, all_ms, o.reporting, (cpu1.cpu_s - cpu0.cpu_s) / elapsed, steady_cores,
              max_threads, max_rss, killed);
  return reported >= o.nodes ? 0 : 1;
}
