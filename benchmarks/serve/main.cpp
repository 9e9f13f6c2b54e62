// bench_serve: what `soma serve` costs and how fast it is (benchmarks/README.md,
// "serve"). A real `soma serve` process over a store in --dir (/dev/shm by
// default), asked over loopback HTTP by this process:
//
//   a  floor: in this process, the reads a run's page and its curve must do
//      at least: run_summary (a scan of the run) and curve (a scan of its
//      summarised loss), over a run of --forwards (100,000)
//   b  GET /api/run/R                   the run's row and its series
//   c  GET /api/run/R/curve.svg         the figure, draw::progress's SVG, with
//                                       the points the page hovers over on it
//   d  GET /api/run/R/curve?points=2000 those points alone (what a page
//                                       comparing runs asks for besides)
//   e  b + c: the run's page and its curve; target < 100 ms
//   f  GET /api/run/R/forwards?offset=-100: the page's last forwards
//   g  a forward written to its event reaching a live stream (median, p90,
//      max over --samples forwards written 20 ms apart); target median < 200 ms
//   h  recording: a blocking forward of the seed graph watched by a recorder
//      into the served store, forwards/s, with no page open, then with
//      --pages (4) live pages open (3 following the run being recorded, one
//      the store's runs and fleet), alternated --reps times; the ratio is
//      what the pages cost the runtime
//   i  the runs page over the whole store, asked right after a forward was
//      written, beside runs() in this process (one scan of every record)

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "seed_nodes.hpp"
#include "soma/recorder.hpp"
#include "soma/soma.hpp"
#include "soma/store/readers.hpp"
#include "writing.hpp"

namespace {

using clock_type = std::chrono::steady_clock;

struct options {
  std::size_t forwards = 100'000, reps = 9, samples = 100, pages = 4, recorded = 20'000;
  std::string dir;
};

// What ends a run that cannot go on; thrown, so that the soma serve it
// started is stopped on the way out.
struct bench_failed : std::runtime_error {
  using std::runtime_error::runtime_error;
};

[[noreturn]] void bad(const std::string& why) { throw bench_failed{why}; }

double ms_since(clock_type::time_point t) {
  return std::chrono::duration<double, std::milli>(clock_type::now() - t).count();
}

double median(std::vector<double> xs) {
  std::sort(xs.begin(), xs.end());
  return xs.empty() ? 0 : xs[xs.size() / 2];
}

double quantile(std::vector<double> xs, double q) {
  std::sort(xs.begin(), xs.end());
  return xs.empty() ? 0 : xs[std::min(xs.size() - 1, static_cast<std::size_t>(q * static_cast<double>(xs.size())))];
}

// Half the range over the repetitions, in per cent of the median.
double spread(const std::vector<double>& xs) {
  auto [lo, hi] = std::minmax_element(xs.begin(), xs.end());
  auto m = median(xs);
  return m > 0 ? (*hi - *lo) / 2 / m * 100 : 0;
}

soma_test::written forward_of(std::uint64_t i, std::int64_t when) {
  soma::record r;
  r.when_us = when * 1'000'000;
  r.state = soma::outcome::ok;
  r.nodes = 3;
  r.took_us = 900;
  auto loss = std::to_string(1.0 / (1.0 + static_cast<double>(i)) + static_cast<double>(i % 7) * 1e-3);
  r.summary = {{"loss.value", loss}};
  return {r,
          {{"ran", {{"node", "tokenize"}, {"began_us", 0}, {"took_us", 200}}},
           {"ran", {{"node", "embed"}, {"began_us", 10}, {"took_us", 400}, {"host", "w1"}}},
           {"left", {{"host", "w1"}, {"began_us", 200}, {"took_us", 600}}},
           {"ran", {{"node", "score"}, {"began_us", 800}, {"took_us", 100}}},
           {"finished", {{"took_us", 900}}},
           {"loss", {{"value", loss}}}}};
}

// A connection to the server on loopback: one HTTP/1.1 request at a time
// (a GET, its whole answer read), or a live stream read on a thread.
class connection {
public:
  explicit connection(int port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<std::uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0)
      bad("cannot reach soma serve on port " + std::to_string(port));
  }
  ~connection() { ::close(fd_); }

  void send(const std::string& target, const std::string& more = "") {
    auto req = "GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\n" + more + "\r\n";
    if (::send(fd_, req.data(), req.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(req.size()))
      bad("cannot send to soma serve");
  }

  // Reads what came within `within` ms onto `into`; false at the end.
  bool read(std::string& into, int within) {
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, within) <= 0)
      return true;
    char buf[1 << 16];
    auto n = ::recv(fd_, buf, sizeof buf, 0);
    if (n <= 0)
      return false;
    into.append(buf, static_cast<std::size_t>(n));
    return true;
  }

  // GETs `target` and returns the body (Content-Length answers only).
  std::string get(const std::string& target) {
    send(target);
    std::string in;
    auto deadline = clock_type::now() + std::chrono::seconds(60);
    for (;;) {
      auto head = in.find("\r\n\r\n");
      if (head != std::string::npos) {
        auto at = in.find("Content-Length: ");
        if (at == std::string::npos || at > head)
          bad("an answer without Content-Length to " + target);
        auto length = std::stoul(in.substr(at + 16));
        if (in.size() >= head + 4 + length) {
          if (in.compare(9, 3, "200") != 0)
            bad(target + " answered " + in.substr(9, 3) + ": " + in.substr(head + 4, 300));
          return in.substr(head + 4, length);
        }
      }
      if (clock_type::now() > deadline || !read(in, 1000))
        bad("no whole answer to " + target + " within 60 s");
    }
  }

private:
  int fd_ = -1;
};

// A live page: a stream on its own thread, noting when each forward's event
// arrived (by its id) until stopped.
// An open page's stream, read on a thread of its own. `timed`: when each
// event arrived is kept, for row g; else events are only counted, as a page
// that shows them does no more than read them (row h measures the server's
// cost, not this driver's bookkeeping, which runs on the recorder's cores).
class live_page {
public:
  live_page(int port, const std::string& target, bool timed = false) : c_(port) {
    c_.send(target, "Accept: text/event-stream\r\n");
    thread_ = std::thread{[this, timed] {
      std::string in;
      std::size_t scanned = 0;
      while (!stop_ && c_.read(in, 50)) {
        for (auto at = in.find("\nid: ", scanned); at != std::string::npos; at = in.find("\nid: ", at + 1)) {
          auto nl = in.find('\n', at + 5);
          if (nl == std::string::npos)
            break;
          scanned = nl;
          events_.fetch_add(1, std::memory_order_relaxed);
          if (!timed)
            continue;
          auto id = std::stoull(in.substr(at + 5, nl - at - 5));
          std::lock_guard lock{mutex_};
          arrived_.emplace(id, clock_type::now());
        }
        if (in.size() > (1u << 20)) { // keep memory flat on a long stream
          in.erase(0, scanned);
          scanned = 0;
        }
      }
    }};
  }
  ~live_page() {
    stop_ = true;
    thread_.join();
  }
  /// Events read so far.
  std::uint64_t events() const { return events_.load(std::memory_order_relaxed); }

  std::optional<clock_type::time_point> arrival(std::uint64_t id) {
    std::lock_guard lock{mutex_};
    auto at = arrived_.find(id);
    if (at == arrived_.end())
      return std::nullopt;
    return at->second;
  }

private:
  connection c_;
  std::atomic<bool> stop_{false};
  std::atomic<std::uint64_t> events_{0};
  std::mutex mutex_;
  std::map<std::uint64_t, clock_type::time_point> arrived_;
  std::thread thread_;
};

// `soma serve` as a user starts it: its URL's port, stopped with SIGTERM.
class server {
public:
  explicit server(const std::string& store) {
    int out[2];
    if (::pipe(out) != 0)
      bad("pipe failed");
    pid_ = ::fork();
    if (pid_ < 0)
      bad("fork failed");
    if (pid_ == 0) {
      ::dup2(out[1], 1);
      ::close(out[0]);
      ::execl(SOMA_CLI_PROGRAM, SOMA_CLI_PROGRAM, "serve", "--store", store.c_str(), "--listen",
              "127.0.0.1:0", static_cast<char*>(nullptr));
      ::_exit(127);
    }
    ::close(out[1]);
    std::string line;
    char c = 0;
    pollfd p{out[0], POLLIN, 0};
    while (line.find('\n') == std::string::npos && ::poll(&p, 1, 15000) == 1 && ::read(out[0], &c, 1) == 1)
      line += c;
    ::close(out[0]);
    auto colon = line.rfind(':');
    if (!line.starts_with("http://") || colon == std::string::npos) {
      stop(); // no destructor runs for a server never made
      bad("soma serve did not print its URL within 15 s (it printed '" + line + "')");
    }
    port = std::atoi(line.c_str() + colon + 1);
  }
  ~server() { stop(); }
  server(const server&) = delete;
  server& operator=(const server&) = delete;
  int port = 0;

private:
  void stop() {
    ::kill(pid_, SIGTERM);
    int status = 0;
    ::waitpid(pid_, &status, 0);
  }

  pid_t pid_ = -1;
};

// Removes a directory the run made, however the run ends.
struct removed_at_end {
  std::string dir;
  ~removed_at_end() {
    std::error_code ignored;
    if (!dir.empty())
      std::filesystem::remove_all(dir, ignored);
  }
};

} // namespace

int main(int argc, char** argv) try {
  options opt;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc)
        bad(a + " needs a value");
      return argv[++i];
    };
    auto count = [&] {
      auto v = value();
      char* end = nullptr;
      auto n = std::strtoull(v.c_str(), &end, 10);
      if (v.empty() || *end || n == 0)
        bad(a + " needs a positive whole number, not '" + v + "'");
      return static_cast<std::size_t>(n);
    };
    if (a == "--help") {
      std::printf("bench_serve [--forwards N] [--reps R] [--samples S] [--pages P] [--recorded N] [--dir DIR]\n"
                  "  --forwards N  forwards of the run whose page is served (100000)\n"
                  "  --reps R      repetitions per row; the table shows the median (9)\n"
                  "  --samples S   forwards timed from written to their live event (100)\n"
                  "  --pages P     live pages open in row h (4)\n"
                  "  --recorded N  forwards recorded per repetition of row h (20000)\n"
                  "  --dir DIR     where the store goes (a fresh directory under /dev/shm)\n");
      return 0;
    } else if (a == "--forwards") {
      opt.forwards = count();
    } else if (a == "--reps") {
      opt.reps = count();
    } else if (a == "--samples") {
      opt.samples = count();
    } else if (a == "--pages") {
      opt.pages = count();
    } else if (a == "--recorded") {
      opt.recorded = count();
    } else if (a == "--dir") {
      opt.dir = value();
    } else {
      bad("unknown option '" + a + "'");
    }
  }
  std::string dir = opt.dir;
  if (dir.empty()) {
    char tmpl[] = "/dev/shm/bench_serve-XXXXXX";
    if (!::mkdtemp(tmpl))
      bad("cannot make a directory under /dev/shm");
    dir = tmpl;
  }
  removed_at_end made{opt.dir.empty() ? dir : std::string{}};
  auto path = dir + "/store";
  soma::store s{path};
  const std::int64_t t0 = 1'800'000'000;
  std::printf("writing a run of %zu forwards into %s...\n", opt.forwards, path.c_str());
  for (std::size_t at = 0; at < opt.forwards; at += 10'000) {
    std::vector<soma_test::written> batch;
    for (auto i = at; i < std::min(opt.forwards, at + 10'000); ++i)
      batch.push_back(forward_of(i, t0 + static_cast<std::int64_t>(i / 100)));
    soma_test::write_forwards(s, "big", std::move(batch), at, {"loss"});
  }
  soma_test::write_forwards(s, "live", {forward_of(0, t0)}, 0, {"loss"});

  server serving{path};
  std::printf("soma serve on port %d\n\n", serving.port);
  std::printf("%-58s %10s %8s %8s\n", "row", "median", "spread", "x a");

  // a: the floor, in this process.
  std::vector<double> floor;
  for (std::size_t r = 0; r < opt.reps; ++r) {
    auto t = clock_type::now();
    auto row = soma::run_summary(s, "big");
    auto points = soma::curve(s, "big", "loss");
    floor.push_back(ms_since(t));
    if (row.forwards != opt.forwards || points.size() != opt.forwards)
      bad("the floor read the wrong run");
  }
  auto a = median(floor);
  std::printf("%-58s %7.2f ms %7.1f%% %8s\n", "a  floor: run_summary + curve in-process", a, spread(floor), "1.00");

  // Each request on a connection of its own, as a page's first load makes
  // it: the connect is in the time.
  auto get = [&](const std::string& target) { return connection{serving.port}.get(target); };
  auto timed = [&](const char* name, const std::string& target, std::size_t must_hold) {
    std::vector<double> xs;
    (void)get(target); // warm: the page cache and the server's first read
    for (std::size_t r = 0; r < opt.reps; ++r) {
      auto t = clock_type::now();
      auto body = get(target);
      xs.push_back(ms_since(t));
      if (body.size() < must_hold)
        bad(target + " answered only " + std::to_string(body.size()) + " bytes");
    }
    auto m = median(xs);
    std::printf("%-58s %7.2f ms %7.1f%% %8.2f\n", name, m, spread(xs), m / a);
    return xs;
  };
  auto b = timed("b  GET /api/run/big", "/api/run/big", 50);
  auto cc = timed("c  GET /api/run/big/curve.svg", "/api/run/big/curve.svg", 1000);
  (void)timed("d  GET /api/run/big/curve?points=2000", "/api/run/big/curve?points=2000", 1000);
  std::vector<double> e;
  for (std::size_t r = 0; r < opt.reps; ++r)
    e.push_back(b[r] + cc[r]);
  auto page = median(e);
  std::printf("%-58s %7.2f ms %7.1f%% %8.2f\n", "e  b + c: a run's page and its curve", page, spread(e), page / a);
  timed("f  GET /api/run/big/forwards?offset=-100", "/api/run/big/forwards?offset=-100", 1000);

  // g: from a forward committed to its event at a live stream.
  std::vector<double> late;
  {
    live_page watching{serving.port, "/events?run=live&after=0", true};
    for (std::uint64_t n = 1; n <= opt.samples; ++n) {
      auto written = clock_type::now();
      soma_test::write_forwards(s, "live", {forward_of(n, t0)}, n, {"loss"});
      auto deadline = written + std::chrono::seconds(5);
      std::optional<clock_type::time_point> came;
      while (!(came = watching.arrival(n)) && clock_type::now() < deadline)
        std::this_thread::sleep_for(std::chrono::microseconds(200));
      if (!came)
        bad("forward " + std::to_string(n) + " never reached the live stream (5 s)");
      late.push_back(std::chrono::duration<double, std::milli>(*came - written).count());
      std::this_thread::sleep_until(written + std::chrono::milliseconds(20));
    }
  }
  std::printf("%-58s %7.2f ms %7.1f%% %8s   p90 %.2f ms, max %.2f ms\n",
              "g  a forward written to its live event", median(late), 0.0, "-", quantile(late, 0.9),
              *std::max_element(late.begin(), late.end()));

  // h: recording with and without live pages.
  soma::system_config cfg;
  caf::actor_system system{cfg};
  auto g = soma::graph::somatize(system, Tokenize{}.named("tokenize") >> Embed{}.named("embed")
                                           >> Score{}.named("score"));
  // Until the server streams to no page (it notices a closed one within
  // about 2 s), so that no repetition pays for pages of another (row g's
  // included).
  auto wait_streams_closed = [&] {
    auto closed = [&] {
      return get("/metrics").find("\nsoma_serve_live_streams 0\n") != std::string::npos;
    };
    auto deadline = clock_type::now() + std::chrono::seconds(10);
    while (!closed() && clock_type::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (!closed())
      bad("soma serve still streamed to a closed page 10 s after it closed");
  };
  wait_streams_closed();
  std::vector<double> none, with;
  for (std::size_t r = 0; r < 2 * opt.reps; ++r) {
    bool pages = r % 2 == 1;
    auto run = "rec-" + std::to_string(r);
    soma::recorder rec{system, s, {.run = run, .summarising = {"loss"}}};
    g.forward("the quick brown fox jumps", {.watching = rec});
    rec.flush(); // the run exists: the pages can follow it
    std::vector<std::unique_ptr<live_page>> open;
    if (pages) {
      for (std::size_t p = 0; p < opt.pages; ++p)
        open.push_back(std::make_unique<live_page>(
          serving.port, p + 1 == opt.pages ? std::string{"/events"} : "/events?run=" + run + "&after=0"));
    }
    auto t = clock_type::now();
    for (std::size_t i = 1; i < opt.recorded; ++i) {
      g.forward("the quick brown fox jumps", {.watching = rec});
      rec.tell(soma::fact{"loss", {{"value", 1.0 / static_cast<double>(i)}}});
    }
    rec.flush();
    auto per_s = static_cast<double>(opt.recorded - 1) / (ms_since(t) / 1000);
    (pages ? with : none).push_back(per_s);
    // The pages following the run received every forward after the first
    // (they opened after it; checked after the time is taken): a server that
    // fell behind for good would flatter this row.
    for (std::size_t p = 0; p + 1 < open.size(); ++p) {
      auto deadline = clock_type::now() + std::chrono::seconds(30);
      while (open[p]->events() < opt.recorded - 1 && clock_type::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      if (open[p]->events() != opt.recorded - 1)
        bad("a live page of run " + run + " received " + std::to_string(open[p]->events()) + " of its "
            + std::to_string(opt.recorded - 1) + " new forwards within 30 s");
    }
    open.clear();
    wait_streams_closed(); // the next repetition starts with no page of this one

  }
  auto h0 = median(none), h1 = median(with);
  std::printf("%-58s %7.0f /s %7.1f%% %8s\n", "h  recording, no page open", h0, spread(none), "1.00");
  std::printf("%-58s %7.0f /s %7.1f%% %8.3f\n",
              ("h  recording, " + std::to_string(opt.pages) + " live pages open").c_str(), h1, spread(with),
              h1 / h0);
  // i: the runs page over the whole store (every run above), each request
  // right after a forward was written, so that the server must look again:
  // beside runs() in this process, the one scan of every record the page
  // cost before soma serve kept a runs_tally.
  std::vector<double> scanned, paged;
  std::uint64_t records = 0;
  for (std::size_t r = 0; r < opt.reps; ++r) {
    auto t = clock_type::now();
    auto rows = soma::runs(s);
    scanned.push_back(ms_since(t));
    records = 0;
    for (auto& row : rows)
      records += row.forwards;
  }
  auto i0 = median(scanned);
  std::printf("%-58s %7.2f ms %7.1f%% %8s\n",
              ("i  runs() in-process: one scan of " + std::to_string(records) + " records").c_str(), i0,
              spread(scanned), "1.00");
  (void)get("/api/runs");
  for (std::size_t r = 0; r < opt.reps; ++r) {
    auto n = opt.samples + 1 + r;
    soma_test::write_forwards(s, "live", {forward_of(n, t0)}, n, {"loss"});
    auto t = clock_type::now();
    if (get("/api/runs").size() < 100)
      bad("/api/runs answered too little");
    paged.push_back(ms_since(t));
  }
  auto i1 = median(paged);
  std::printf("%-58s %7.2f ms %7.1f%% %8.3f\n", "i  GET /api/runs after a forward written", i1, spread(paged),
              i1 / i0);

  std::printf("\ntargets: e < 100 ms: %s; g median < 200 ms: %s; h with pages within the spread of none: %s\n",
              page < 100 ? "met" : "NOT met", median(late) < 200 ? "met" : "NOT met",
              std::abs(h1 / h0 - 1) * 100 <= std::max(spread(none), spread(with)) ? "yes" : "no");
} catch (const bench_failed& e) {
  std::fprintf(stderr, "bench_serve: %s (--help says how it goes)\n", e.what());
  return 2;
} catch (const std::exception& e) { // unwound: the soma serve it started is stopped
  std::fprintf(stderr, "bench_serve: %s\n", e.what());
  return 1;
}
