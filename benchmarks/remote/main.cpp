// bench_remote: what a trip to a worker costs, against what it cannot beat.
//
//   a  the cheap node in-process (a blocking forward of a 1-node graph)
//   b  raw TCP ping-pong over loopback, TCP_NODELAY, of the trip's bytes (floor)
//   c  the cheap node on a worker already up, one forward at a time (warm trip)
//   c' plain CAF's remote request/response of the same bytes, one at a time
//   c" c' through a local actor that relays each request and its answer
//   d  the same with many forwards in flight through one worker
//   d' plain CAF's request/response with as many in flight
//   d" d' through the relay of c"
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
//   l' plain CAF's request/response of a 1 MiB string each way, beside l
//   m  soma's own wire work per trip, in-process: what it adds to CAF's
//
// Plain CAF's peer is a process of its own (bench_remote_caf_peer), as
// soma's worker is, with soma::system_config's settings on both ends; its
// strings are sized so that a request and an answer put as many bytes on
// the wire as soma's trip does, counted by the kernel (TCP_INFO).
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
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <caf/actor_system.hpp>
#include <caf/scoped_actor.hpp>

#include "bench.hpp"
#include "cheap_node.hpp"
#include "context_switches.hpp"
#include "plain_caf.hpp"
#include "soma/forward_state.hpp"
#include "soma/remote/broker.hpp"
#include "soma/graph.hpp"
#include "soma/system_config.hpp"
#include "soma/remote/worker.hpp"
#include "soma/store/store.hpp"
#include "soma/wire/slice.hpp"
#include "tcp_counters.hpp"

namespace {

using clock_type = std::chrono::steady_clock;
constexpr const char* driver = "bench_remote";
constexpr const char* usage =
  "usage: bench_remote [--n TRIPS] [--reps R] [--inflight K] [--no-tls] [--stops S] [--terms T]\n"
  "                    [--rows LETTERS] [--caf.KEY=VALUE ...]\n"
  "  --rows LETTERS   the rows to run, from a to n (default all), e.g. --rows l; c, d and l\n"
  "                   run their primed rows too, and l its l2; b, the floor, always runs\n"
  "  --caf.KEY=VALUE  a CAF 0.17 option (as --KEY=VALUE) over soma::system_config's, for this\n"
  "                   process's actor systems and plain CAF's peer; soma-node workers keep\n"
  "                   soma::system_config's\n";

double micros(clock_type::duration d) {
  return std::chrono::duration<double, std::micro>(d).count();
}

double median(std::vector<double> xs) {
  std::sort(xs.begin(), xs.end());
  return xs[xs.size() / 2];
}

// One row: median µs per trip over the reps, and per-rep spread.
void print(const char* name, const std::vector<double>& us, double floor_us) {
  if (us.empty())
    return; // not among --rows
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

// (l, l2) `n` trips of a 1 MiB value through `g`: µs per trip.
template <class G, class V>
double big_trips(const G& g, const soma::forward_options& opt, const V& value, std::size_t n) {
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

// What one trip costs beside time, averaged over `trips` trips made by `run`.
struct per_trip {
  double out = 0, back = 0;            ///< bytes on the wire each way
  double switches_here = 0;            ///< context switches in this process
  double switches_there = 0;           ///< and in the peer's, `there`
};

// Every connection and thread of this process is counted, so run it when
// only the trips' connection is busy.
template <class F>
per_trip count_trips(std::size_t trips, pid_t there, F run) {
  auto t0 = tcp_counters::now();
  auto here0 = context_switches(getpid()), there0 = context_switches(there);
  run();
  auto here1 = context_switches(getpid()), there1 = context_switches(there);
  auto t1 = tcp_counters::now();
  auto per = [trips](std::uint64_t a, std::uint64_t b) {
    return static_cast<double>(b - a) / static_cast<double>(trips);
  };
  return {per(t0.sent, t1.sent), per(t0.received, t1.received), per(here0, here1), per(there0, there1)};
}

// (m) what soma does per trip that plain CAF does not, in-process: the
// worker checks the header against its bound plan, makes the `ran` fact and
// encodes the SliceResult; the client copies the header into the message,
// decodes the SliceResult and stamps its facts with the host. µs per trip.
double wire_work(const std::string& header, std::size_t n, std::size_t* answer_bytes) {
  const std::string bound = header;
  std::size_t sum = 0;
  auto t0 = clock_type::now();
  for (std::size_t i = 0; i < n; ++i) {
    std::string sent = header; // into the trip's message
    sum += sent == bound;      // the worker's plan is bound to this header
    soma::wire::slice_answer a;
    a.facts.push_back(soma::detail::ran_fact("cheap", static_cast<std::int64_t>(i), 3));
    auto bytes = soma::wire::encode_slice_answer(a);
    *answer_bytes = bytes.size();
    auto r = soma::wire::decode_slice_answer(bytes);
    for (auto& x : r.facts)
      x.fields.emplace_back("host", "w1");
    sum += r.facts.size();
  }
  auto us = micros(clock_type::now() - t0) / static_cast<double>(n);
  if (sum == 42)
    std::puts("");
  return us;
}

} // namespace

int main(int argc, char** argv) {
  std::size_t n = 2000, reps = 5, k = 64, stops = 10, terms = 20;
  bool tls = true;
  std::string rows = "abcdefghijklmn";
  std::vector<std::string> caf_args;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a.starts_with("--caf.")) {
      // CAF 0.17 names its options without the "caf." that 0.18 added.
      caf_args.push_back("--" + a.substr(6));
      continue;
    }
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
    else if (a == "--rows") {
      rows = value();
      if (rows.empty() || rows.find_first_not_of("abcdefghijklmn") != std::string::npos)
        bench::refuse(driver, usage, "--rows takes letters from a to n, not '" + rows + "'");
    }
    else
      bench::refuse(driver, usage, "unknown option '" + a + "'");
  }
  const std::string node = SOMA_NODE_PROGRAM, lib = SOMA_BENCH_NODES;
  std::printf("bench_remote: %zu trips × %zu reps, %zu in flight for d; µs per trip, median (min-max)\n\n",
              n, reps, k);

  soma::system_config cfg;
  if (!caf_args.empty()) {
    if (auto err = cfg.parse(caf_args))
      bench::refuse(driver, usage, "CAF rejected the --caf options: " + to_string(err));
    if (cfg.cli_helptext_printed)
      return 0;
  }
  auto dir = std::filesystem::temp_directory_path() / ("bench-remote-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  std::string certs = tls ? certificates(dir.string()) : "";
  soma::tls client{certs + "/c.pem", certs + "/c.key", certs + "/ca.pem"};
  if (!certs.empty())
    cfg.use_tls(client);
  caf::actor_system sys{cfg};
  auto want = [&rows](char row) { return rows.find(row) != std::string::npos; };

  // f first, so the worker it measures starts on a quiet machine.
  std::vector<double> cold;
  for (std::size_t r = 0; r < reps && want('f'); ++r) {
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
  if (!caf_args.empty())
    (void)quiet_cfg.parse(caf_args); // checked on cfg above
  caf::actor_system quiet_sys{quiet_cfg};
  // A beat every 600 s: off, for what a run of this length can see.
  auto qw = soma::worker::spawn(quiet_sys, {node, "--nodes", lib, "--connection-timeout", "3600"});
  auto qb = soma::broker::embedded({{"w1", qw}});
  auto quiet_remote = soma::graph::somatize(quiet_sys, Cheap{}.named("cheap").at("w1"));
  soma::forward_options qopt;
  qopt.broker = qb;

  // n: a trip, then a node here; j: three nodes in one slice; k: a
  // cached remote node, recalled.
  auto then_here = soma::graph::somatize(sys, Cheap{}.named("there").at("w1") >> Cheap{}.named("here"));
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
  // l2: 1 MiB of numbers there and back.
  auto echo_numbers = soma::graph::somatize(sys, EchoNumbers{}.named("echo_numbers").at("w1"));
  std::vector<double> mib_numbers(mib.size() / sizeof(double));
  for (std::size_t i = 0; i < mib_numbers.size(); ++i)
    mib_numbers[i] = static_cast<double>(i) * 0.5;
  const std::size_t big_n = std::max<std::size_t>(20, n / 20);

  // c', d': plain CAF, its strings sized to put soma's trip's bytes on the
  // wire: soma's counted first, then plain CAF's framing of empty strings.
  // Each call makes n + n / 10 + 1 trips, its untimed warm-up included.
  const std::size_t calibration = 500, trips = calibration + calibration / 10 + 1;
  (void)remote.forward(0, opt);
  auto soma_trip = count_trips(trips, w.pid(), [&] { (void)blocking_trips(remote, opt, calibration); });
  caf_peer peer{sys, SOMA_CAF_PEER_PROGRAM, caf_args};
  peer.reply_bytes(0);
  auto frame = count_trips(trips, peer.pid(), [&] { (void)plain_trips(sys, peer.actor(), "", 0, calibration); });
  auto sized = [](double soma_bytes, double frame) {
    return static_cast<std::size_t>(std::max(0.0, std::round(soma_bytes - frame)));
  };
  const std::string payload(sized(soma_trip.out, frame.out), 'p');
  const std::size_t reply = sized(soma_trip.back, frame.back);
  peer.reply_bytes(reply);
  auto plain_trip =
    count_trips(trips, peer.pid(), [&] { (void)plain_trips(sys, peer.actor(), payload, reply, calibration); });
  auto nodelay = tcp_counters::now();
  auto relay = plain_relay(sys, peer);
  auto relay_trip =
    count_trips(trips, peer.pid(), [&] { (void)plain_trips(sys, relay, payload, reply, calibration); });

  std::vector<double> a, floor, c, c_caf, c_relay, d, d_relay, d_caf, e, g, j, kr, l, l2, l_caf, l_floor, l_copy, m, nh;
  // The trip's bytes: a Slice of one node with an 8-byte input, and its answer.
  const std::size_t trip_bytes = 256;
  soma::wire::slice_node cheap_node{"Cheap", "cheap", std::string(64, 'd'), lib, ""};
  const auto header = soma::wire::encode_slice({cheap_node});
  std::size_t answer_bytes = 0;
  for (std::size_t r = 0; r < reps; ++r) {
    if (want('a'))
      a.push_back(blocking_trips(local, {}, n));
    floor.push_back(tcp_ping_pong(trip_bytes, n));
    if (want('c')) {
      c.push_back(blocking_trips(remote, opt, n));
      c_caf.push_back(plain_trips(sys, peer.actor(), payload, reply, n));
      c_relay.push_back(plain_trips(sys, relay, payload, reply, n));
    }
    if (want('g'))
      g.push_back(blocking_trips(quiet_remote, qopt, n));
    if (want('d')) {
      d.push_back(in_flight(sys, remote, b, n * 5, k));
      d_caf.push_back(plain_in_flight(sys, peer.actor(), payload, reply, n * 5, k));
      d_relay.push_back(plain_in_flight(sys, relay, payload, reply, n * 5, k));
    }
    if (want('m'))
      m.push_back(wire_work(header, n * 10, &answer_bytes));
    if (want('j'))
      j.push_back(blocking_trips(three, opt, n));
    if (want('n'))
      nh.push_back(blocking_trips(then_here, opt, n));
    // The same inputs every rep: after the first, every forward recalls.
    if (want('k'))
      kr.push_back(blocking_trips(cached, kopt, n));
    if (want('l')) {
      l.push_back(big_trips(echo, opt, mib, big_n));
      l2.push_back(big_trips(echo_numbers, opt, mib_numbers, big_n));
      peer.reply_bytes(mib.size());
      l_caf.push_back(plain_trips(sys, peer.actor(), mib, mib.size(), big_n));
      peer.reply_bytes(reply);
      l_floor.push_back(tcp_ping_pong(mib.size(), big_n));
      l_copy.push_back(memcpy_both_ways(mib.size(), big_n));
    }
  }
  std::optional<soma::worker> tw;
  if (!certs.empty() && want('e')) {
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
  if (want('c')) {
    print("c  warm trip to a worker (blocking forward)", c, f);
    print("c' plain CAF request/response, same bytes", c_caf, f);
    std::printf("   c / c' = %.2f; on the wire per trip: soma %.0f B out, %.0f B back; plain CAF %.0f out, "
                "%.0f back (strings of %zu and %zu B)\n",
                median(c) / median(c_caf), soma_trip.out, soma_trip.back, plain_trip.out, plain_trip.back,
                payload.size(), reply);
    std::printf("   TCP_NODELAY on %d of this process's %d CAF connections\n", nodelay.nodelay,
                nodelay.connections);
    print("c\" c' through a local relay actor", c_relay, f);
    std::printf("   c / c\" = %.2f: c\" adds one local hop each way, as a slice entered from a local node makes\n",
                median(c) / median(c_relay));
    std::printf("   context switches per trip, here + there: c %.1f + %.1f, c' %.1f + %.1f, c\" %.1f + %.1f\n",
                soma_trip.switches_here, soma_trip.switches_there, plain_trip.switches_here,
                plain_trip.switches_there, relay_trip.switches_here, relay_trip.switches_there);
  }
  if (want('d')) {
    print("d  many in flight through one worker, per trip", d, f);
    std::printf("   = %.0f trips/s\n", 1e6 / median(d));
    print("d' plain CAF, as many in flight, per trip", d_caf, f);
    std::printf("   = %.0f trips/s\n", 1e6 / median(d_caf));
    print("d\" d' through the local relay actor", d_relay, f);
    std::printf("   = %.0f trips/s\n", 1e6 / median(d_relay));
  }
  if (!e.empty())
    print("e  warm trip over mutual TLS", e, f);
  else if (want('e'))
    std::printf("e  warm trip over mutual TLS: skipped (%s)\n", tls ? "no openssl program" : "--no-tls");
  if (!cold.empty())
    std::printf("%-48s %10.2f ms  (%.2f-%.2f)\n", "f  cold start: spawn to first result", median(cold) / 1000,
                *std::min_element(cold.begin(), cold.end()) / 1000,
                *std::max_element(cold.begin(), cold.end()) / 1000);
  print("g  c with the heartbeat off (c has it on)", g, f);
  if (!c.empty() && !g.empty())
    std::printf("   c / g = %.2f\n", median(c) / median(g));
  print("j  three nodes in one slice, one trip", j, f);
  if (!c.empty() && !j.empty())
    std::printf("   j / c = %.2f\n", median(j) / median(c));
  print("n  a trip, then a node here (blocking forward)", nh, f);
  if (!c.empty() && !nh.empty() && !a.empty())
    std::printf("   n - c = %.1f µs (a, the node here alone, %.1f µs)\n", median(nh) - median(c), median(a));
  print("k  a cached remote node recalled (no trip)", kr, 0);
  if (!kr.empty() && !a.empty() && !c.empty())
    std::printf("   k / a = %.2f, c / k = %.1f\n", median(kr) / median(a), median(c) / median(kr));
  if (want('l')) {
    auto lf = median(l_floor);
    print("l  a 1 MiB value there and back", l, lf);
    print("l' plain CAF, a 1 MiB string each way", l_caf, lf);
    std::printf("   l / l' = %.2f\n", median(l) / median(l_caf));
    print("l2 1 MiB of numbers (a vector<double>) there and back", l2, lf);
    std::printf("   l2 / l = %.2f\n", median(l2) / median(l));
    print("   raw TCP ping-pong of 1 MiB (its floor)", l_floor, 0);
    print("   memcpy of 1 MiB there and back", l_copy, 0);
  }
  if (want('m')) {
    print("m  soma's own wire work per trip, in-process", m, 0);
    std::printf("   header %zu B, SliceResult with one ran fact %zu B", header.size(), answer_bytes);
    if (!c.empty() && median(c) > median(c_caf))
      std::printf("; m / (c - c') = %.2f", median(m) / (median(c) - median(c_caf)));
    std::printf("\n");
  }
  auto bound = soma::detection_bound(sys.config()).count();
  if (want('h'))
    print_ms("h  SIGSTOP to the error of the forward in flight", detect_stopped(sys, node, lib, stops),
             "bound " + std::to_string(bound) + " ms");
  if (want('i'))
    print_ms("i  SIGTERM to exit, a forward in flight", stop_in_flight(sys, node, lib, terms),
             "bound 2000 ms (--stop-within 1.5 s)");
  std::printf("\ntargets: c ≤ 4× b (stretch 3×); d ≥ 80,000 trips/s; f < 50 ms; g within noise "
              "of c; h ≤ its bound; i ≤ 2000 ms; k far under c (no trip); l ≤ 1 ms\n");
  auto met = [](bool ok) { return ok ? "met" : "MISSED"; };
  if (want('c')) {
    std::printf("warm trip at most plain CAF's: c %.1f µs vs plain CAF %.1f µs %s\n", median(c),
                median(c_caf), met(median(c) <= median(c_caf)));
    std::printf("gRPC's mark, warm trip at most 2.0× b (gRPC 1.5-2.0×): c %.2f× b %s\n", median(c) / f,
                met(median(c) <= 2.0 * f));
  }
  if (want('d'))
    std::printf("in flight at least plain CAF's: d %.0f/s vs plain CAF %.0f/s %s\n", 1e6 / median(d),
                1e6 / median(d_caf), met(median(d) <= median(d_caf)));
  if (want('l'))
    std::printf("a 1 MiB value at wire speed, l at most 1 ms: l %.0f µs (%.2f× its TCP floor of %.0f µs; "
                "plain CAF l' %.0f µs) %s\n",
                median(l), median(l) / median(l_floor), median(l_floor), median(l_caf),
                met(median(l) <= 1000));
  caf::anon_send_exit(relay, caf::exit_reason::user_shutdown);
  std::filesystem::remove_all(dir);
  return 0;
}
