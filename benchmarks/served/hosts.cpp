// bench_hosts: a simulated fleet against one served store. It starts a
// soma-node --serve-store, then opens N real store sessions from this one
// process, spread over at least 100 actor systems (client nodes: CAF
// carries every actor between two nodes on one connection, so the server
// meets many sockets, not one). Each session sends a real machine reading
// every --reporting seconds; --recorders R bench_served recorders write
// beside them, and a reader asks `standing` every 250 ms to see when each
// reading shows. Its last line is one JSON object (benchmarks/README.md,
// "bench_hosts"; docs/scale.md says what it measured).
//
//   bench_hosts --hosts N [--reporting 0.5] [--seconds 30] [--recorders 0]
//               [--nodes 100] [--warmup 60] [--clients-nice 10]

#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <caf/actor_system.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/io/middleman.hpp>
#include <caf/stateful_actor.hpp>

#include "server.hpp"
#include "soma/remote/protocol.hpp"
#include "soma/remote/served_store.hpp"
#include "soma/served/protocol.hpp"
#include "soma/store/answers.hpp"
#include "soma/store/backend.hpp"
#include "soma/store/standing.hpp"
#include "soma/system_config.hpp"
#include "soma/wire/reading.hpp"

namespace {

using clock_type = std::chrono::steady_clock;
using namespace std::chrono_literals;

std::int64_t wall_us() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
           std::chrono::system_clock::now().time_since_epoch())
    .count();
}

// What every host adds to.
struct tallies {
  std::atomic<std::uint64_t> opened{0}, refused{0}, sent{0}, landed{0}, failed{0};
  std::atomic<bool> counting{false};
  std::atomic<std::uint64_t> due_in_window{0}, landed_in_window{0};
};

using tick_atom = caf::atom_constant<caf::atom("tick")>;
using open_again_atom = caf::atom_constant<caf::atom("openagain")>;

struct host_state {
  caf::actor session;
  static inline const char* name = "bench.host";
};

// One simulated host: opens its session, then sends a reading of itself
// every `every`, each answered within 5 s or counted failed.
caf::behavior host(caf::stateful_actor<host_state>* self, caf::actor front, std::string id,
                   std::chrono::microseconds every, std::chrono::microseconds phase,
                   tallies* t) {
  auto open = [self, front, t] {
    self->request(front, 30s, soma::detail::open_atom::value, caf::actor_cast<caf::actor>(self),
                  std::string{soma::served::store_mode})
      .then(
        [self, t](caf::actor& session) {
          self->state.session = session;
          ++t->opened;
        },
        [self, t](caf::error&) {
          ++t->refused;
          self->delayed_send(self, 1s, open_again_atom::value);
        });
  };
  open();
  self->delayed_send(self, phase, tick_atom::value);
  return {
    [open](open_again_atom) { open(); },
    [self, id, every, t](tick_atom) {
      self->delayed_send(self, every, tick_atom::value);
      bool counting = t->counting.load();
      if (counting)
        ++t->due_in_window;
      if (!self->state.session)
        return;
      soma::reading r;
      r.id = id;
      r.every_us = every.count();
      r.when_us = wall_us();
      ++t->sent;
      self->request(self->state.session, 5s, soma::served::store_atom::value,
                    static_cast<std::uint8_t>(soma::served::store_op::reading),
                    soma::wire::encode_reading(r))
        .then(
          [t, counting](std::string&) {
            ++t->landed;
            if (counting)
              ++t->landed_in_window;
          },
          [t](caf::error&) { ++t->failed; });
    },
  };
}

double quantile(std::vector<double> v, double q) {
  if (v.empty())
    return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<std::size_t>(q * static_cast<double>(v.size())))];
}

// Milliseconds `soma standing --store ADDRESS` takes, as a person runs it.
double standing_cli_ms(const std::string& address) {
  auto began = clock_type::now();
  std::string cmd = std::string{SOMA_CLI_PROGRAM} + " standing --store " + address + " >/dev/null 2>&1";
  int rc = std::system(cmd.c_str());
  auto ms = std::chrono::duration<double, std::milli>(clock_type::now() - began).count();
  return rc == 0 ? ms : -1;
}

pid_t start_recorder(const std::string& address, int i, double seconds) {
  std::vector<std::string> args{SOMA_BENCH_SERVED, "--record", address, "hosts-r" + std::to_string(i),
                                "1000", std::to_string(seconds), "100"};
  std::vector<char*> argv;
  for (auto& a : args)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = -1;
  if (posix_spawn(&pid, argv[0], nullptr, nullptr, argv.data(), environ) != 0)
    return -1;
  return pid;
}

struct options {
  std::size_t hosts = 1000;
  double reporting = 0.5;
  double seconds = 30;
  int recorders = 0;
  std::size_t nodes = 100;
  double warmup = 60;
  int clients_nice = 10;
};

bool parse(int argc, char** argv, options& o) {
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i];
    if (a == "--hosts")
      o.hosts = std::stoul(argv[i + 1]);
    else if (a == "--reporting")
      o.reporting = std::stod(argv[i + 1]);
    else if (a == "--seconds")
      o.seconds = std::stod(argv[i + 1]);
    else if (a == "--recorders")
      o.recorders = std::stoi(argv[i + 1]);
    else if (a == "--nodes")
      o.nodes = std::stoul(argv[i + 1]);
    else if (a == "--warmup")
      o.warmup = std::stod(argv[i + 1]);
    else if (a == "--clients-nice")
      o.clients_nice = std::stoi(argv[i + 1]);
    else
      return false;
  }
  return argc % 2 == 1 && o.hosts > 0 && o.reporting > 0 && o.seconds > 0 && o.nodes > 0;
}

} // namespace

int main(int argc, char** argv) {
  options o;
  if (!parse(argc, argv, o)) {
    std::fprintf(stderr, "usage: bench_hosts --hosts N [--reporting S (0.5)] [--seconds S (30)] "
                         "[--recorders R (0)] [--nodes CLIENT-SYSTEMS (100)] [--warmup S (60)] "
                         "[--clients-nice N (10)]\n");
    return 2;
  }
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  soma_bench::scratch_dir scratch{"bench-hosts"};
  const std::string& root = scratch.path;
  auto dir = root + "/served";
  soma_bench::served_node srv{dir, {"--store-sessions", std::to_string(o.hosts + 64)}};
  std::printf("server %s (pid %d)\n", srv.address.c_str(), srv.pid);
  // The simulated hosts run at a lower priority than their server (nice
  // --clients-nice, 10 by default; threads made from here on inherit it):
  // on a fleet the server has a machine of its own, and here a hundred
  // client nodes' threads would otherwise take the cores it needs. What the
  // clients could not send in time shows as due but not landed.
  if (o.clients_nice != 0 && ::setpriority(PRIO_PROCESS, 0, o.clients_nice) != 0)
    std::fprintf(stderr, "bench_hosts: cannot lower the clients' priority: they run at the server's\n");

  // The client nodes: one scheduler thread each, idle without spinning.
  auto nodes = std::min(o.nodes, o.hosts);
  std::vector<std::unique_ptr<soma::system_config>> cfgs;
  std::vector<std::unique_ptr<caf::actor_system>> systems;
  tallies t;
  std::vector<caf::actor> hosts;
  auto every = std::chrono::microseconds(static_cast<std::int64_t>(o.reporting * 1e6));
  std::mt19937_64 rng{42};
  std::uniform_int_distribution<std::int64_t> phase_of(0, every.count());
  for (std::size_t n = 0; n < nodes; ++n) {
    auto& cfg = *cfgs.emplace_back(std::make_unique<soma::system_config>());
    cfg.set("scheduler.max-threads", std::size_t{1});
    cfg.set("work-stealing.aggressive-poll-attempts", std::size_t{10});
    cfg.set("work-stealing.moderate-poll-attempts", std::size_t{10});
    auto& sys = *systems.emplace_back(std::make_unique<caf::actor_system>(cfg));
    auto front = sys.middleman().remote_actor("127.0.0.1", srv.port());
    if (!front) {
      std::fprintf(stderr, "client node %zu cannot reach %s: %s\n", n, srv.address.c_str(),
                   sys.render(front.error()).c_str());
      return 1;
    }
    for (std::size_t h = n; h < o.hosts; h += nodes)
      hosts.push_back(sys.spawn(host, *front, "host-" + std::to_string(h), every,
                                std::chrono::microseconds(phase_of(rng)), &t));
  }
  // Every host has its session and a reading landed, or the warm-up ends.
  auto began = clock_type::now();
  while (clock_type::now() - began < std::chrono::duration<double>(o.warmup)
         && (t.opened.load() < o.hosts || t.landed.load() < o.hosts))
    std::this_thread::sleep_for(100ms);
  std::printf("warm-up: %llu of %zu sessions open, %llu refused, %llu readings landed, %.1f s\n",
              static_cast<unsigned long long>(t.opened.load()), o.hosts,
              static_cast<unsigned long long>(t.refused.load()),
              static_cast<unsigned long long>(t.landed.load()),
              std::chrono::duration<double>(clock_type::now() - began).count());

  std::vector<pid_t> recorders;
  for (int i = 0; i < o.recorders; ++i)
    recorders.push_back(start_recorder(srv.address, i, o.seconds));

  // The window.
  soma::system_config reader_cfg;
  caf::actor_system reader_sys{reader_cfg};
  auto reader = soma::open_store(reader_sys, srv.address, {.read_only = true});
  soma::store local{dir, {.read_only = true}};
  auto txn0 = local.backend().ask().version();
  using soma_bench::sample;
  auto cpu0 = sample(srv.pid);
  auto own0 = sample(::getpid());
  t.counting = true;
  auto window0 = clock_type::now();
  auto window_end = window0 + std::chrono::duration_cast<clock_type::duration>(
                                std::chrono::duration<double>(o.seconds));
  std::vector<double> visible_ms, standing_ms;
  std::map<std::string, std::int64_t> seen;
  int max_threads = 0;
  double max_rss = 0;
  auto next_cli = window0 + std::chrono::seconds(2);
  while (clock_type::now() < window_end) {
    auto poll_began = clock_type::now();
    if (reader) {
      try {
        auto machines = soma::standing(*reader);
        auto now = wall_us();
        for (auto& [id, r] : machines) {
          auto& last = seen[id];
          if (r.when_us > last) {
            if (last != 0)
              visible_ms.push_back(static_cast<double>(now - r.when_us) / 1000.0);
            last = r.when_us;
          }
        }
      } catch (const std::exception& e) {
        std::fprintf(stderr, "standing: %s\n", e.what());
      }
    }
    auto s = sample(srv.pid);
    max_threads = std::max(max_threads, s.threads);
    max_rss = std::max(max_rss, s.rss_mb);
    if (clock_type::now() >= next_cli && standing_ms.size() < 7) {
      standing_ms.push_back(standing_cli_ms(srv.address));
      next_cli = clock_type::now() + std::chrono::seconds(3);
    }
    std::this_thread::sleep_until(poll_began + 250ms);
  }
  t.counting = false;
  auto elapsed = std::chrono::duration<double>(clock_type::now() - window0).count();
  auto cpu1 = sample(srv.pid);
  auto own1 = sample(::getpid());
  auto txn1 = local.backend().ask().version();
  for (auto pid : recorders)
    if (pid > 0)
      ::waitpid(pid, nullptr, 0);
  std::vector<double> cli_ok;
  for (auto ms : standing_ms)
    if (ms >= 0)
      cli_ok.push_back(ms);

  std::printf("window %.1f s: %llu readings due, %llu landed, %llu failed in all; standing polls saw "
              "%zu readings; %zu of %zu soma standing runs worked\n",
              elapsed, static_cast<unsigned long long>(t.due_in_window.load()),
              static_cast<unsigned long long>(t.landed_in_window.load()),
              static_cast<unsigned long long>(t.failed.load()), visible_ms.size(), cli_ok.size(),
              standing_ms.size());
  std::printf("{\"hosts\": %zu, \"nodes\": %zu, \"reporting\": %g, \"recorders\": %d, "
              "\"due_per_s\": %.0f, \"landed_per_s\": %.0f, "
              "\"visible_p50_ms\": %.0f, \"visible_p99_ms\": %.0f, \"server_cpu_cores\": %.3f, "
              "\"server_threads\": %d, \"server_rss_mb\": %.0f, \"commits_per_s\": %.1f, "
              "\"standing_ms\": %.0f, \"clients_cpu_cores\": %.3f, \"clients_nice\": %d}\n",
              o.hosts, nodes, o.reporting, o.recorders,
              static_cast<double>(t.due_in_window.load()) / elapsed,
              static_cast<double>(t.landed_in_window.load()) / elapsed, quantile(visible_ms, 0.5),
              quantile(visible_ms, 0.99), (cpu1.cpu_s - cpu0.cpu_s) / elapsed, max_threads, max_rss,
              static_cast<double>(txn1 - txn0) / elapsed, quantile(cli_ok, 0.5),
              (own1.cpu_s - own0.cpu_s) / elapsed, o.clients_nice);
  // The hosts stop, then their systems go, before the server.
  for (auto& h : hosts)
    caf::anon_send_exit(h, caf::exit_reason::user_shutdown);
  hosts.clear();
  systems.clear();
  return 0;
}
