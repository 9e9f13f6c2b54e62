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

#include <fcntl.h>
#include <signal.h>
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

#include "recorders.hpp"
#include "server.hpp"
#include "soma/remote/protocol.hpp"
#include "soma/remote/served_store.hpp"
#include "soma/served/protocol.hpp"
#include "soma/store/answers.hpp"
#include "soma/store/backend.hpp"
#include "soma/store/check.hpp"
#include "soma/store/readers.hpp"
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

using front_atom = caf::atom_constant<caf::atom("front")>;

struct host_state {
  caf::actor front;
  caf::actor session;
  bool opening = false;
  std::uint64_t front_number = 0; // an open through an older front is forgotten
  static inline const char* name = "bench.host";
};

// One simulated host: opens its session, then sends a reading of itself
// every `every`, each answered within 5 s or counted failed. A failed
// reading drops the session, and the host opens another a second later,
// through the server's front it was last told of (front_atom: a server
// restarted after a fault). `acked` keeps the time of its newest reading
// the server confirmed.
caf::behavior host(caf::stateful_actor<host_state>* self, caf::actor front, std::string id,
                   std::chrono::microseconds every, std::chrono::microseconds phase,
                   tallies* t, std::atomic<std::int64_t>* acked) {
  self->state.front = std::move(front);
  auto open = [self, t] {
    if (self->state.opening || self->state.session)
      return; // one session a host
    self->state.opening = true;
    self->request(self->state.front, 30s, soma::detail::open_atom::value,
                  caf::actor_cast<caf::actor>(self), std::string{soma::served::store_mode})
      .then(
        [self, t, through = self->state.front_number](caf::actor& session) {
          if (through != self->state.front_number)
            return; // asked of a front since replaced
          self->state.opening = false;
          self->state.session = session;
          self->monitor(session); // its server gone: open another at once
          ++t->opened;
        },
        [self, t, through = self->state.front_number](caf::error&) {
          if (through != self->state.front_number)
            return;
          self->state.opening = false;
          ++t->refused;
          self->delayed_send(self, 1s, open_again_atom::value);
        });
  };
  open();
  self->set_down_handler([self](caf::down_msg& dm) {
    if (self->state.session && dm.source == self->state.session.address()) {
      self->state.session = nullptr;
      self->delayed_send(self, 200ms, open_again_atom::value);
    }
  });
  self->delayed_send(self, phase, tick_atom::value);
  return {
    [open](open_again_atom) { open(); },
    [self, open](front_atom, caf::actor& front) {
      // An open still waiting on the old front may never be answered (a
      // connection CAF still holds to a server that was stopped): ask anew.
      self->state.front = std::move(front);
      ++self->state.front_number;
      self->state.opening = false;
      if (!self->state.session)
        open();
    },
    [self, id, every, t, acked](tick_atom) {
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
          [t, counting, acked, when = r.when_us](std::string&) {
            ++t->landed;
            if (counting)
              ++t->landed_in_window;
            for (auto seen = acked->load(); when > seen && !acked->compare_exchange_weak(seen, when);) {
            }
          },
          [self, t, on = self->state.session](caf::error&) {
            ++t->failed;
            if (self->state.session == on) { // that session is lost: open another
              self->state.session = nullptr;
              self->delayed_send(self, 1s, open_again_atom::value);
            }
          });
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

// The client nodes tell their hosts where the server's front is now.
void tell_fronts(std::vector<std::unique_ptr<caf::actor_system>>& systems,
                 const std::vector<std::vector<caf::actor>>& hosts_of, std::uint16_t port) {
  for (std::size_t n = 0; n < systems.size(); ++n) {
    auto front = systems[n]->middleman().remote_actor("127.0.0.1", port);
    if (!front) {
      std::fprintf(stderr, "client node %zu cannot reach the server again: %s\n", n,
                   systems[n]->render(front.error()).c_str());
      continue;
    }
    for (auto& h : hosts_of[n])
      caf::anon_send(h, front_atom::value, *front);
  }
}

struct options;
std::string fault_figures(const options& o, const soma::store& local,
                          const std::vector<std::int64_t>& confirmed_at_fault, const std::string& root);

struct options {
  std::size_t hosts = 1000;
  double reporting = 0.5;
  double seconds = 30;
  int recorders = 0;
  std::size_t nodes = 100;
  double warmup = 60;
  int clients_nice = 10;
  std::string fault = "none"; // kill or stop: done to the server --fault-at s into the window
  double fault_at = -1;       // -1: a third of the way in
  double stopped = 5;         // how long a stopped server stays stopped
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
    else if (a == "--fault")
      o.fault = argv[i + 1];
    else if (a == "--fault-at")
      o.fault_at = std::stod(argv[i + 1]);
    else if (a == "--stopped")
      o.stopped = std::stod(argv[i + 1]);
    else
      return false;
  }
  if (o.fault_at < 0)
    o.fault_at = o.seconds / 3;
  return argc % 2 == 1 && o.hosts > 0 && o.reporting > 0 && o.seconds > 0 && o.nodes > 0
         && (o.fault == "none" || o.fault == "kill" || o.fault == "stop") && o.stopped > 0;
}

// After a fault, what was confirmed and is not in the store, or is there
// twice, as JSON fields to add (none without a fault): every host's newest
// reading confirmed before the fault must be (or be older than) its latest
// in the store; every recorder's confirmed forwards must be stored, and no
// more than it made; `soma check` must find nothing damaged.
std::string fault_figures(const options& o, const soma::store& local,
                          const std::vector<std::int64_t>& confirmed_at_fault, const std::string& root) {
  if (o.fault == "none")
    return "";
  auto standing = soma::standing(local);
  std::size_t hosts_confirmed = 0, readings_lost = 0;
  for (std::size_t h = 0; h < confirmed_at_fault.size(); ++h) {
    if (confirmed_at_fault[h] == 0)
      continue;
    ++hosts_confirmed;
    auto it = standing.find("host-" + std::to_string(h));
    if (it == standing.end() || it->second.when_us < confirmed_at_fault[h])
      ++readings_lost;
  }
  std::uint64_t made = 0, confirmed = 0, stored = 0, lost = 0, extra = 0;
  for (int i = 0; i < o.recorders; ++i) {
    auto said = soma_bench::read_recorder(root + "/recorder-" + std::to_string(i));
    std::uint64_t there = 0;
    try {
      there = soma::run_summary(local, "hosts-r" + std::to_string(i)).forwards;
    } catch (const soma::store_error&) {
    }
    made += said.made;
    confirmed += said.confirmed;
    stored += there;
    lost += said.confirmed > there ? said.confirmed - there : 0;
    extra += there > said.made ? there - said.made : 0;
  }
  auto damaged = soma::check(local).damaged.size();
  std::printf("fault %s: %zu of %zu hosts' confirmed readings lost; recorders made %llu forwards, "
              "%llu confirmed, %llu stored (%llu confirmed and lost, %llu more than made); soma "
              "check: %zu damaged\n",
              o.fault.c_str(), readings_lost, hosts_confirmed, static_cast<unsigned long long>(made),
              static_cast<unsigned long long>(confirmed), static_cast<unsigned long long>(stored),
              static_cast<unsigned long long>(lost), static_cast<unsigned long long>(extra), damaged);
  char out[512];
  std::snprintf(out, sizeof out,
                ", \"fault\": \"%s\", \"fault_at_s\": %g, \"hosts_confirmed_at_fault\": %zu, "
                "\"readings_lost\": %zu, \"recorder_forwards_made\": %llu, "
                "\"recorder_forwards_confirmed\": %llu, \"recorder_forwards_stored\": %llu, "
                "\"recorder_forwards_lost\": %llu, \"recorder_forwards_extra\": %llu, "
                "\"check_damaged\": %zu",
                o.fault.c_str(), o.fault_at, hosts_confirmed, readings_lost,
                static_cast<unsigned long long>(made), static_cast<unsigned long long>(confirmed),
                static_cast<unsigned long long>(stored), static_cast<unsigned long long>(lost),
                static_cast<unsigned long long>(extra), damaged);
  return out;
}

} // namespace

int main(int argc, char** argv) {
  options o;
  if (!parse(argc, argv, o)) {
    std::fprintf(stderr, "usage: bench_hosts --hosts N [--reporting S (0.5)] [--seconds S (30)] "
                         "[--recorders R (0)] [--nodes CLIENT-SYSTEMS (100)] [--warmup S (60)] "
                         "[--clients-nice N (10)] [--fault none|kill|stop] [--fault-at S (a third "
                         "of --seconds)] [--stopped S (5)]\n");
    return 2;
  }
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  soma_bench::scratch_dir scratch{"bench-hosts"};
  const std::string& root = scratch.path;
  auto dir = root + "/served";
  auto sessions = std::to_string(o.hosts + 64);
  auto srv = std::make_unique<soma_bench::served_node>(dir, std::vector<std::string>{"--store-sessions", sessions});
  std::printf("server %s (pid %d)\n", srv->address.c_str(), srv->pid);
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
  std::vector<std::vector<caf::actor>> hosts_of(std::min(o.nodes, o.hosts));
  std::vector<std::atomic<std::int64_t>> acked(o.hosts); // each host's newest reading confirmed
  auto every = std::chrono::microseconds(static_cast<std::int64_t>(o.reporting * 1e6));
  std::mt19937_64 rng{42};
  std::uniform_int_distribution<std::int64_t> phase_of(0, every.count());
  for (std::size_t n = 0; n < nodes; ++n) {
    auto& cfg = *cfgs.emplace_back(std::make_unique<soma::system_config>());
    cfg.set("scheduler.max-threads", std::size_t{1});
    cfg.set("work-stealing.aggressive-poll-attempts", std::size_t{10});
    cfg.set("work-stealing.moderate-poll-attempts", std::size_t{10});
    auto& sys = *systems.emplace_back(std::make_unique<caf::actor_system>(cfg));
    auto front = sys.middleman().remote_actor("127.0.0.1", srv->port());
    if (!front) {
      std::fprintf(stderr, "client node %zu cannot reach %s: %s\n", n, srv->address.c_str(),
                   sys.render(front.error()).c_str());
      return 1;
    }
    for (std::size_t h = n; h < o.hosts; h += nodes) {
      hosts.push_back(sys.spawn(host, *front, "host-" + std::to_string(h), every,
                                std::chrono::microseconds(phase_of(rng)), &t, &acked[h]));
      hosts_of[n].push_back(hosts.back());
    }
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
    recorders.push_back(soma_bench::start_recorder(srv->address, "hosts-r" + std::to_string(i), o.seconds, root + "/recorder-" + std::to_string(i)));

  // The window.
  soma::system_config reader_cfg;
  caf::actor_system reader_sys{reader_cfg};
  auto reader = soma::open_store(reader_sys, srv->address, {.read_only = true});
  soma::store local{dir, {.read_only = true}};
  auto txn0 = local.backend().ask().version();
  using soma_bench::sample;
  auto cpu0 = sample(srv->pid);
  double cpu_spent = 0, cpu_from = cpu0.cpu_s; // across a restart: the old process's, then the new's
  // The fault, once: what every host had confirmed at that moment.
  std::vector<std::int64_t> confirmed_at_fault;
  auto fault_at = clock_type::now() + std::chrono::duration_cast<clock_type::duration>(
                                        std::chrono::duration<double>(o.fault_at));
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
    if (o.fault != "none" && confirmed_at_fault.empty() && poll_began >= fault_at) {
      for (auto& a : acked)
        confirmed_at_fault.push_back(a.load());
      auto port = srv->port();
      if (o.fault == "kill") {
        cpu_spent += sample(srv->pid).cpu_s - cpu_from;
        ::kill(srv->pid, SIGKILL);
        ::waitpid(srv->pid, nullptr, 0);
        srv->pid = -1;
        srv = std::make_unique<soma_bench::served_node>(
          dir, std::vector<std::string>{"--store-sessions", sessions, "--listen",
                                        "127.0.0.1:" + std::to_string(port)});
        cpu_from = 0;
      } else {
        ::kill(srv->pid, SIGSTOP);
        std::this_thread::sleep_for(std::chrono::duration<double>(o.stopped));
        ::kill(srv->pid, SIGCONT);
      }
      std::printf("fault: server %s at %.1f s into the window, back as pid %d\n",
                  o.fault == "kill" ? "SIGKILLed and started again" : "stopped, then resumed",
                  std::chrono::duration<double>(poll_began - window0).count(), srv->pid);
      tell_fronts(systems, hosts_of, port);
    }
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
    auto s = sample(srv->pid);
    max_threads = std::max(max_threads, s.threads);
    max_rss = std::max(max_rss, s.rss_mb);
    if (clock_type::now() >= next_cli && standing_ms.size() < 7) {
      standing_ms.push_back(standing_cli_ms(srv->address));
      next_cli = clock_type::now() + std::chrono::seconds(3);
    }
    std::this_thread::sleep_until(poll_began + 250ms);
  }
  t.counting = false;
  auto elapsed = std::chrono::duration<double>(clock_type::now() - window0).count();
  auto cpu1 = sample(srv->pid);
  cpu_spent += cpu1.cpu_s - cpu_from;
  auto own1 = sample(::getpid());
  auto txn1 = local.backend().ask().version();
  for (auto pid : recorders)
    if (pid > 0)
      ::waitpid(pid, nullptr, 0);
  std::vector<double> cli_ok;
  for (auto ms : standing_ms)
    if (ms >= 0)
      cli_ok.push_back(ms);

  std::printf("window %.1f s: %llu readings due, %llu landed, %llu failed in all; sessions opened "
              "%llu, refused %llu in all; standing polls saw %zu readings; %zu of %zu soma "
              "standing runs worked\n",
              elapsed, static_cast<unsigned long long>(t.due_in_window.load()),
              static_cast<unsigned long long>(t.landed_in_window.load()),
              static_cast<unsigned long long>(t.failed.load()),
              static_cast<unsigned long long>(t.opened.load()),
              static_cast<unsigned long long>(t.refused.load()), visible_ms.size(), cli_ok.size(),
              standing_ms.size());
  std::printf("{\"hosts\": %zu, \"nodes\": %zu, \"reporting\": %g, \"recorders\": %d, "
              "\"due_per_s\": %.0f, \"landed_per_s\": %.0f, "
              "\"visible_p50_ms\": %.0f, \"visible_p99_ms\": %.0f, \"server_cpu_cores\": %.3f, "
              "\"server_threads\": %d, \"server_rss_mb\": %.0f, \"commits_per_s\": %.1f, "
              "\"standing_ms\": %.0f, \"clients_cpu_cores\": %.3f, \"clients_nice\": %d%s}\n",
              o.hosts, nodes, o.reporting, o.recorders,
              static_cast<double>(t.due_in_window.load()) / elapsed,
              static_cast<double>(t.landed_in_window.load()) / elapsed, quantile(visible_ms, 0.5),
              quantile(visible_ms, 0.99), cpu_spent / elapsed, max_threads, max_rss,
              static_cast<double>(txn1 - txn0) / elapsed, quantile(cli_ok, 0.5),
              (own1.cpu_s - own0.cpu_s) / elapsed, o.clients_nice,
              fault_figures(o, local, confirmed_at_fault, root).c_str());
  // The hosts stop, then their systems go, before the server.
  for (auto& h : hosts)
    caf::anon_send_exit(h, caf::exit_reason::user_shutdown);
  hosts.clear();
  systems.clear();
  return 0;
}
