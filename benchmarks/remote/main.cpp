// bench_remote: what a trip to a worker costs, against what it cannot beat.
//
//   a  the cheap node in-process (a blocking forward of a 1-node graph)
//   b  raw TCP ping-pong over loopback, TCP_NODELAY, of the trip's bytes (floor)
//   c  the cheap node on a worker already up, one forward at a time (warm trip)
//   d  the same with many forwards in flight through one worker
//   e  c over mutual TLS
//   f  cold start: worker::spawn, then the first result
//   g  c with CAF's heartbeat off on both ends, beside c (heartbeat on, the default)
//   h  time from SIGSTOP of a worker to the error of the forward in flight to it,
//      beside the configured bound (soma::detection_bound)
//   i  time from SIGTERM of a worker with a forward in flight to its exit
//   j  a slice of three cheap nodes on a worker, one trip (beside c)
//   k  a cached remote node recalled: no trip (beside a and c)
//   l  a 1 MiB value's trip there and back, beside a memcpy of it both ways and
//      the raw TCP ping-pong of 1 MiB (its floor)
//
// Medians over --reps runs of --n trips; ratios against b from the same run.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <atomic>
#include <future>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include <caf/actor_system.hpp>
#include <caf/scoped_actor.hpp>

#include "bench.hpp"
#include "cheap_node.hpp"
#include "soma/remote/broker.hpp"
#include "soma/graph.hpp"
#include "soma/system_config.hpp"
#include "soma/remote/worker.hpp"
#include "soma/store/store.hpp"

namespace {

using clock_type = std::chrono::steady_clock;
constexpr const char* driver = "bench_remote";
constexpr const char* usage =
  "usage: bench_remote [--n TRIPS] [--reps R] [--inflight K] [--no-tls] [--stops S] [--terms T]\n";

double micros(clock_type::duration d) {
  return std::chrono::duration<double, std::micro>(d).count();
}

double median(std::vector<double> xs) {
  std::sort(xs.begin(), xs.end());
  return xs[xs.size() / 2];
}

// One row: median µs per trip over the reps, and per-rep spread.
void print(const char* name, const std::vector<double>& us, double floor_us) {
  auto m = median(us);
  auto [lo, hi] = std::minmax_element(us.begin(), us.end());
  std::printf("%-48s %10.1f µs  (%.1f-%.1f)", name, m, *lo, *hi);
  if (floor_us > 0)
    std::printf("  %5.2f× floor", m / floor_us);
  std::printf("\n");
}

// (b) the floor: a thread echoing `bytes`-sized messages on loopback.
double tcp_ping_pong(std::size_t bytes, std::size_t n) {
  int listener = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  listen(listener, 1);
  getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len);
  auto exact = [](int fd, char* p, std::size_t k, bool writing) {
    while (k > 0) {
      auto r = writing ? write(fd, p, k) : read(fd, p, k);
      if (r <= 0)
        return false;
      p += r;
      k -= static_cast<std::size_t>(r);
    }
    return true;
  };
  std::thread echo([&] {
    int fd = accept(listener, nullptr, nullptr);
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    std::vector<char> buf(bytes);
    while (exact(fd, buf.data(), bytes, false) && exact(fd, buf.data(), bytes, true)) {
    }
    close(fd);
  });
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  std::vector<char> buf(bytes, 'x');
  for (int i = 0; i < 100; ++i)
    exact(fd, buf.data(), bytes, true), exact(fd, buf.data(), bytes, false);
  auto t0 = clock_type::now();
  for (std::size_t i = 0; i < n; ++i) {
    exact(fd, buf.data(), bytes, true);
    exact(fd, buf.data(), bytes, false);
  }
  auto us = micros(clock_type::now() - t0) / static_cast<double>(n);
  close(fd);
  echo.join();
  close(listener);
  return us;
}

// (l) `n` trips of a 1 MiB value through `g`: µs per trip.
template <class G>
double big_trips(const G& g, const soma::forward_options& opt, const std::string& value,
                 std::size_t n) {
  std::size_t sum = 0;
  for (std::size_t i = 0; i < 3; ++i)
    sum += g.forward(value, opt).size();
  auto t0 = clock_type::now();
  for (std::size_t i = 0; i < n; ++i)
    sum += g.forward(value, opt).size();
  auto us = micros(clock_type::now() - t0) / static_cast<double>(n);
  if (sum == 42)
    std::puts("");
  return us;
}

// (l) a memcpy of `bytes` there and back: µs.
double memcpy_both_ways(std::size_t bytes, std::size_t n) {
  std::vector<char> a(bytes, 'x'), b(bytes);
  auto t0 = clock_type::now();
  for (std::size_t i = 0; i < n; ++i) {
    std::memcpy(b.data(), a.data(), bytes);
    std::memcpy(a.data(), b.data(), bytes);
    asm volatile("" : : "r"(a.data()), "r"(b.data()) : "memory");
  }
  return micros(clock_type::now() - t0) / static_cast<double>(n);
}

template <class G>
double blocking_trips(const G& g, const soma::forward_options& opt, std::size_t n) {
  std::int64_t sum = 0;
  for (std::size_t i = 0; i < n / 10 + 1; ++i)
    sum += g.forward(static_cast<std::int64_t>(i), opt);
  auto t0 = clock_type::now();
  for (std::size_t i = 0; i < n; ++i)
    sum += g.forward(static_cast<std::int64_t>(i), opt);
  auto us = micros(clock_type::now() - t0) / static_cast<double>(n);
  if (sum == 42)
    std::puts("");
  return us;
}

// (d) K forwards in flight at any moment, asked by one actor.
template <class G>
double in_flight(caf::actor_system& sys, const G& g, const soma::broker& b, std::size_t n,
                 std::size_t k) {
  caf::scoped_actor self{sys};
  soma::forward_options opt;
  opt.broker = b;
  std::size_t sent = 0, got = 0;
  auto t0 = clock_type::now();
  // Pipelined: keep k outstanding by sending k, then one more per answer.
  for (std::size_t i = 0; i < std::min(k, n); ++i)
    self->send(caf::actor_cast<caf::actor>(g.actor()), soma::forward_atom::value,
               static_cast<std::int64_t>(sent++), opt);
  while (got < n) {
    auto next = [&] {
      ++got;
      if (sent < n)
        self->send(caf::actor_cast<caf::actor>(g.actor()), soma::forward_atom::value,
                   static_cast<std::int64_t>(sent++), opt);
    };
    // A failed forward or a stalled worker ends the driver with a message,
    // never a row timed around a hang.
    self->receive([&](std::int64_t) { next(); },
                  [&](caf::error& e) {
                    std::fprintf(stderr, "bench_remote: a forward failed: %s\n", sys.render(e).c_str());
                    std::exit(1);
                  },
                  caf::after(std::chrono::seconds(30)) >> [&] {
                    std::fprintf(stderr, "bench_remote: no answer for 30 s with %zu in flight\n",
                                 sent - got);
                    std::exit(1);
                  });
  }
  return micros(clock_type::now() - t0) / static_cast<double>(n);
}

// (h) S times: a worker stopped with a forward in flight; ms to the error.
std::vector<double> detect_stopped(caf::actor_system& sys, const std::string& node,
                                   const std::string& lib, std::size_t times) {
  std::vector<double> ms;
  for (std::size_t i = 0; i < times; ++i) {
    auto w = soma::worker::spawn(sys, {node, "--nodes", lib});
    auto b = soma::broker::embedded({{"w1", w}});
    auto g = soma::graph::somatize(sys, Cheap{}.named("cheap").at("w1") >> Cheap{}.named("here"));
    (void)g.forward(1, {.broker = b});
    clock_type::time_point at;
    // Forwards one after another until one fails: one is in flight when the
    // worker stops, or the next one is sent to a stopped worker.
    auto pending = std::async(std::launch::async, [&] {
      for (;;)
        (void)g.forward(1, {.broker = b});
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    kill(w.pid(), SIGSTOP);
    at = clock_type::now();
    if (pending.wait_for(std::chrono::seconds(60)) != std::future_status::ready) {
      std::fprintf(stderr, "bench_remote: a forward to a stopped worker had not ended after 60 s\n");
      std::exit(1);
    }
    try {
      pending.get();
      std::fprintf(stderr, "bench_remote: a forward to a stopped worker gave a value\n");
      std::exit(1);
    } catch (const soma::forward_error&) {
      ms.push_back(micros(clock_type::now() - at) / 1000);
    }
    kill(w.pid(), SIGKILL);
  }
  return ms;
}

// (i) T times: SIGTERM to a worker running a slow slice; ms to its exit.
std::vector<double> stop_in_flight(caf::actor_system& sys, const std::string& node,
                                   const std::string& lib, std::size_t times) {
  std::vector<double> ms;
  for (std::size_t i = 0; i < times; ++i) {
    // A worker this driver reaps itself: spawned by hand, reached by connect.
    int out[2];
    if (pipe(out) != 0)
      std::exit(1);
    pid_t pid = fork();
    if (pid == 0) {
      dup2(out[1], STDOUT_FILENO);
      int quiet = ::open("/dev/null", O_WRONLY);
      dup2(quiet, STDERR_FILENO);
      execl(node.c_str(), node.c_str(), "--nodes", lib.c_str(), nullptr);
      _exit(127);
    }
    close(out[1]);
    std::string port;
    char c = 0;
    while (read(out[0], &c, 1) == 1 && c != '\n')
      port.push_back(c);
    close(out[0]);
    {
      auto w = soma::worker::connect(sys, "127.0.0.1:" + port);
      auto b = soma::broker::embedded({{"w1", w}});
      auto g = soma::graph::somatize(sys, Slow{}.named("slow").at("w1"));
      (void)g.forward(0, {.broker = b});
      auto pending = std::async(std::launch::async, [&] {
        try {
          (void)g.forward(10000, {.broker = b});
        } catch (const std::exception&) {
        }
      });
      std::this_thread::sleep_for(std::chrono::milliseconds(100)); // the slice is running
      auto t0 = clock_type::now();
      kill(pid, SIGTERM);
      int status = 0;
      for (;;) {
        if (waitpid(pid, &status, WNOHANG) == pid)
          break;
        if (clock_type::now() - t0 > std::chrono::seconds(30)) {
          std::fprintf(stderr, "bench_remote: a worker still ran 30 s after SIGTERM\n");
          kill(pid, SIGKILL);
          std::exit(1);
        }
        std::this_thread::sleep_for(std::chrono::microseconds(500));
      }
      ms.push_back(micros(clock_type::now() - t0) / 1000);
      pending.wait();
    }
  }
  return ms;
}

void print_ms(const char* name, const std::vector<double>& ms, const std::string& beside) {
  auto [lo, hi] = std::minmax_element(ms.begin(), ms.end());
  std::printf("%-48s %10.0f ms  median, max %.0f (min %.0f) over %zu; %s\n", name, median(ms), *hi, *lo,
              ms.size(), beside.c_str());
}

std::string certificates(const std::string& dir) {
  auto key = "openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout " + dir;
  auto run = [](const std::string& c) { return std::system((c + " >/dev/null 2>&1").c_str()) == 0; };
  bool ok = run(key + "/ca.key -x509 -days 2 -subj /CN=ca -out " + dir + "/ca.pem");
  for (auto who : {"w", "c"}) {
    std::string w = who;
    ok = ok && run(key + "/" + w + ".key -subj /CN=" + w + " -out " + dir + "/" + w + ".csr")
         && run("openssl x509 -req -days 2 -in " + dir + "/" + w + ".csr -CA " + dir + "/ca.pem -CAkey "
                + dir + "/ca.key -CAcreateserial -out " + dir + "/" + w + ".pem");
  }
  return ok ? dir : "";
}

} // namespace

int main(int argc, char** argv) {
  std::size_t n = 2000, reps = 5, k = 64, stops = 10, terms = 20;
  bool tls = true;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&] {
      if (i + 1 >= argc)
        bench::refuse(driver, usage, a + " needs a value");
      return argv[++i];
    };
    if (a == "--n")
      n = bench::positive(driver, usage, a, value());
    else if (a == "--reps")
      reps = bench::positive(driver, usage, a, value());
    else if (a == "--inflight")
      k = bench::positive(driver, usage, a, value());
    else if (a == "--stops")
      stops = bench::positive(driver, usage, a, value());
    else if (a == "--terms")
      terms = bench::positive(driver, usage, a, value());
    else if (a == "--no-tls")
      tls = false;
    else
      bench::refuse(driver, usage, "unknown option '" + a + "'");
  }
  const std::string node = SOMA_NODE_PROGRAM, lib = SOMA_BENCH_NODES;
  std::printf("bench_remote: %zu trips × %zu reps, %zu in flight for d; µs per trip, median (min-max)\n\n",
              n, reps, k);

  soma::system_config cfg;
  auto dir = std::filesystem::temp_directory_path() / ("bench-remote-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  std::string certs = tls ? certificates(dir.string()) : "";
  soma::tls client{certs + "/c.pem", certs + "/c.key", certs + "/ca.pem"};
  if (!certs.empty())
    cfg.use_tls(client);
  caf::actor_system sys{cfg};

  // f first, so the worker it measures starts on a quiet machine.
  std::vector<double> cold;
  for (std::size_t r = 0; r < reps; ++r) {
    auto t0 = clock_type::now();
    auto w = soma::worker::spawn(sys, {node, "--nodes", lib});
    auto b = soma::broker::embedded({{"w1", w}});
    auto g = soma::graph::somatize(sys, Cheap{}.named("cheap").at("w1"));
    (void)g.forward(1, {.broker = b});
    cold.push_back(micros(clock_type::now() - t0));
  }

  auto w = soma::worker::spawn(sys, {node, "--nodes", lib});
  auto b = soma::broker::embedded({{"w1", w}});
  auto remote = soma::graph::somatize(sys, Cheap{}.named("cheap").at("w1"));
  auto local = soma::graph::somatize(sys, Cheap{}.named("cheap"));
  soma::forward_options opt;
  opt.broker = b;

  // g: the same worker and trip with CAF's heartbeat off on both ends.
  soma::system_config quiet_cfg;
  quiet_cfg.set("middleman.heartbeat-interval", caf::timespan{0});
  quiet_cfg.set("middleman.connection-timeout", caf::timespan{0});
  caf::actor_system quiet_sys{quiet_cfg};
  // A beat every 600 s: off, for what a run of this length can see.
  auto qw = soma::worker::spawn(quiet_sys, {node, "--nodes", lib, "--connection-timeout", "3600"});
  auto qb = soma::broker::embedded({{"w1", qw}});
  auto quiet_remote = soma::graph::somatize(quiet_sys, Cheap{}.named("cheap").at("w1"));
  soma::forward_options qopt;
  qopt.broker = qb;

  // j: three nodes in one slice; k: a cached remote node, recalled.
  auto three = soma::graph::somatize(sys, Cheap{}.named("one").at("w1") >> Cheap{}.named("two").at("w1")
                                            >> Cheap{}.named("three").at("w1"));
  auto cached = soma::graph::somatize(sys, Cheap{}.named("kept").frozen("1").cached().at("w1"));
  soma::store kept{(dir / "kept").string()};
  soma::forward_options kopt;
  kopt.broker = b;
  kopt.store = kept;
  // l: a 1 MiB value there and back.
  auto echo = soma::graph::somatize(sys, Echo{}.named("echo").at("w1"));
  const std::string mib(std::size_t{1} << 20, 'v');
  const std::size_t big_n = std::max<std::size_t>(20, n / 20);

  std::vector<double> a, floor, c, d, e, g, j, kr, l, l_floor, l_copy;
  // The trip's bytes: a Slice of one node with an 8-byte input, and its answer.
  const std::size_t trip_bytes = 256;
  for (std::size_t r = 0; r < reps; ++r) {
    a.push_back(blocking_trips(local, {}, n));
    floor.push_back(tcp_ping_pong(trip_bytes, n));
    c.push_back(blocking_trips(remote, opt, n));
    g.push_back(blocking_trips(quiet_remote, qopt, n));
    d.push_back(in_flight(sys, remote, b, n * 5, k));
    j.push_back(blocking_trips(three, opt, n));
    // The same inputs every rep: after the first, every forward recalls.
    kr.push_back(blocking_trips(cached, kopt, n));
    l.push_back(big_trips(echo, opt, mib, big_n));
    l_floor.push_back(tcp_ping_pong(mib.size(), big_n));
    l_copy.push_back(memcpy_both_ways(mib.size(), big_n));
  }
  std::optional<soma::worker> tw;
  if (!certs.empty()) {
    tw = soma::worker::spawn(sys, {node, "--nodes", lib, "--tls-cert", certs + "/w.pem", "--tls-key",
                                   certs + "/w.key", "--tls-ca", certs + "/ca.pem"},
                             soma::mode::project, client);
    auto tb = soma::broker::embedded({{"w1", *tw}});
    soma::forward_options topt;
    topt.broker = tb;
    for (std::size_t r = 0; r < reps; ++r)
      e.push_back(blocking_trips(remote, topt, n));
  }
  auto f = median(floor);
  print("a  the node in-process (blocking forward)", a, 0);
  print("b  raw TCP ping-pong, 256 B, loopback (floor)", floor, 0);
  print("c  warm trip to a worker (blocking forward)", c, f);
  print("d  many in flight through one worker, per trip", d, f);
  std::printf("   = %.0f trips/s\n", 1e6 / median(d));
  if (!e.empty())
    print("e  warm trip over mutual TLS", e, f);
  else
    std::printf("e  warm trip over mutual TLS: skipped (%s)\n", tls ? "no openssl program" : "--no-tls");
  std::printf("%-48s %10.2f ms  (%.2f-%.2f)\n", "f  cold start: spawn to first result", median(cold) / 1000,
              *std::min_element(cold.begin(), cold.end()) / 1000,
              *std::max_element(cold.begin(), cold.end()) / 1000);
  print("g  c with the heartbeat off (c has it on)", g, f);
  std::printf("   c / g = %.2f\n", median(c) / median(g));
  print("j  three nodes in one slice, one trip", j, f);
  std::printf("   j / c = %.2f\n", median(j) / median(c));
  print("k  a cached remote node recalled (no trip)", kr, 0);
  std::printf("   k / a = %.2f, c / k = %.1f\n", median(kr) / median(a), median(c) / median(kr));
  auto lf = median(l_floor);
  print("l  a 1 MiB value there and back", l, lf);
  print("   raw TCP ping-pong of 1 MiB (its floor)", l_floor, 0);
  print("   memcpy of 1 MiB there and back", l_copy, 0);
  auto bound = soma::detection_bound(sys.config()).count();
  print_ms("h  SIGSTOP to the error of the forward in flight", detect_stopped(sys, node, lib, stops),
           "bound " + std::to_string(bound) + " ms");
  print_ms("i  SIGTERM to exit, a forward in flight", stop_in_flight(sys, node, lib, terms),
           "bound 2000 ms (--stop-within 1.5 s)");
  std::printf("\ntargets: c ≤ 4× b (stretch 3×); d ≥ 80,000 trips/s; f < 50 ms; g within noise "
              "of c; h ≤ its bound; i ≤ 2000 ms; k far under c (no trip)\n");
  std::filesystem::remove_all(dir);
  return 0;
}
