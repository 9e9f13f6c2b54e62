// The served-store benchmark: every reader through soma:// (a soma-node
// --serve-store on loopback) beside the same reader on the local store, in
// the same run, on a big store and on one ten times smaller; the bytes each
// moved beside its answer's own size; and a follower of a run recorded
// through soma:// at a steady rate, bytes it was sent against bytes
// written. See benchmarks/README.md ("bench_served").
//
// Targets (issue 25): a reader through soma:// within 1.5x its local time
// plus one round trip, not growing with the store, only with the answer;
// bytes on the wire at most 2x the answer's own; the follower at most 2x
// what is written; runs on 1,000,000 forwards under 5 ms locally.

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <caf/actor_system.hpp>

#include "soma/soma.hpp"
#include "soma/recorder.hpp"
#include "soma/remote/served_store.hpp"
#include "soma/store/answers.hpp"
#include "soma/store/backend.hpp"
#include "soma/served/questions.hpp"
#include "soma/store/readers.hpp"
#include "soma/store/readings.hpp"
#include "soma/store/standing.hpp"
#include "soma/store/detail/record.hpp"
#include "soma/store/tails.hpp"
#include "soma/system_config.hpp"
#include "soma/wire/reading.hpp"
#include "filled.hpp"
#include "server.hpp"

namespace {

using clock_type = std::chrono::steady_clock;

using server = soma_bench::served_node;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// Milliseconds `f` takes, the median of `reps` after one warm-up.
double time_ms(int reps, const std::function<void()>& f) {
  f();
  std::vector<double> ms;
  for (int i = 0; i < reps; ++i) {
    auto began = clock_type::now();
    f();
    ms.push_back(std::chrono::duration<double, std::milli>(clock_type::now() - began).count());
  }
  return median(ms);
}

std::uint64_t received(const soma::store& s) {
  return dynamic_cast<soma::served::remote_answers&>(s.backend().ask()).received();
}

// A node worth nothing: the follower's run is about the recording.
struct Step : soma::node<Step, int, int> {
  Out forward(const In& x, soma::context&) override { return x + 1; }
};

struct reader_row {
  std::string name;
  std::function<std::uint64_t(const soma::store&)> read; // returns the answer's own size
};

int run_store(caf::actor_system& sys, std::size_t runs, std::size_t forwards, int reps,
              const std::string& root) {
  auto dir = root + "/store-" + std::to_string(runs * forwards);
  std::filesystem::create_directories(dir);
  auto began = clock_type::now();
  soma_bench::fill(dir, runs, forwards);
  std::printf("\n%zu runs x %zu forwards (%.0f MB), written in %.1f s\n", runs, forwards,
              static_cast<double>(std::filesystem::file_size(dir + "/data.mdb")) / 1e6,
              std::chrono::duration<double>(clock_type::now() - began).count());
  soma::store local{dir, {.read_only = true}};
  server srv{dir};
  auto opened = soma::open_store(sys, srv.address, {.read_only = true});
  if (!opened) {
    std::fprintf(stderr, "cannot open %s\n", srv.address.c_str());
    return 1;
  }
  auto& served = *opened;
  auto last = std::to_string(forwards - 1);
  auto rtt = time_ms(reps * 10, [&] { (void)served.backend().ask().version(); });
  std::printf("one round trip (version): %.3f ms\n", rtt);
  std::vector<reader_row> rows{
    {"runs", [](const soma::store& s) {
       std::uint64_t b = 0;
       for (auto& r : soma::runs(s))
         b += r.run.size() + 40;
       return b;
     }},
    {"forwards run0 (all)", [](const soma::store& s) {
       std::uint64_t b = 0;
       for (auto& r : soma::forwards(s, "run0"))
         b += soma::detail::encode_record(r, "run/run0/12345678").size();
       return b;
     }},
    {"forwards run0 (last 100)", [forwards](const soma::store& s) {
       std::uint64_t b = 0;
       for (auto& r : soma::forwards(s, "run0", forwards - 100, 100).records)
         b += soma::detail::encode_record(r, "run/run0/12345678").size();
       return b;
     }},
    {"curve run0 loss", [](const soma::store& s) {
       return static_cast<std::uint64_t>(soma::curve(s, "run0", "loss").size() * 16);
     }},
    {"facts run0 N-1", [forwards](const soma::store& s) {
       return static_cast<std::uint64_t>(
         soma::detail::encode_facts(soma::facts(s, "run0", forwards - 1), "run/run0/12345678").size());
     }},
    {"nodes run0 --last 100", [](const soma::store& s) {
       std::uint64_t b = 0;
       for (auto& n : soma::nodes(s, "run0", 100))
         b += n.node.size() + 40;
       return b;
     }},
    {"standing", [](const soma::store& s) {
       std::uint64_t b = 0;
       for (auto& [id, r] : soma::standing(s))
         b += soma::wire::encode_reading(r).size();
       return b;
     }},
    {"tails (health: last 200, 100 blobs)", [](const soma::store& s) {
       std::uint64_t b = 0;
       for (auto& t : soma::tails(s, {.last = 200, .facts = 100}))
         b += t.records.size() * 40 + t.facts.size() * 120;
       return b;
     }},
  };
  if (forwards * runs <= 200000)
    rows.push_back({"nodes run0 (all)", [](const soma::store& s) {
                      std::uint64_t b = 0;
                      for (auto& n : soma::nodes(s, "run0"))
                        b += n.node.size() + 40;
                      return b;
                    }});
  std::printf("%-38s %10s %10s %8s %12s %12s %6s  %s\n", "reader", "local ms", "soma:// ms",
              "x local", "wire bytes", "answer B", "x", "target: <= 1.5x local + 1 rtt; bytes <= 2x");
  for (auto& r : rows) {
    std::uint64_t answer = 0;
    auto here = time_ms(reps, [&] { answer = r.read(local); });
    auto before = received(served);
    (void)r.read(served);
    auto wire = received(served) - before;
    auto there = time_ms(reps, [&] { (void)r.read(served); });
    bool time_ok = there <= 1.5 * here + rtt;
    bool bytes_ok = wire <= 2 * answer;
    std::printf("%-38s %10.3f %10.3f %8.2f %12llu %12llu %6.2f  %s, %s\n", r.name.c_str(), here, there,
                here > 0 ? there / here : 0.0, static_cast<unsigned long long>(wire),
                static_cast<unsigned long long>(answer),
                answer > 0 ? static_cast<double>(wire) / static_cast<double>(answer) : 0.0,
                time_ok ? "time met" : "time MISSED", bytes_ok ? "bytes met" : "bytes MISSED");
  }
  auto runs_ms = time_ms(reps, [&] { (void)soma::runs(local); });
  std::printf("runs, locally, on %zu forwards in %zu runs: %.3f ms (target < 5 ms: %s)\n",
              runs * forwards, runs, runs_ms, runs_ms < 5 ? "met" : "MISSED");
  return 0;
}

// A recorder writing through soma:// at `rate` forwards/s for `seconds`,
// and a follower asking every 250 ms what a live page asks: whether the
// store moved, the runs, and the forwards after those it has.
int run_follower(caf::actor_system& sys, double rate, double seconds, const std::string& root) {
  auto dir = root + "/followed";
  std::filesystem::create_directories(dir);
  { soma::store make{dir}; }
  server srv{dir};
  auto writer = soma::open_store(sys, srv.address);
  auto follower = soma::open_store(sys, srv.address, {.read_only = true});
  if (!writer || !follower)
    return 1;
  auto g = soma::graph::somatize(sys, Step{}.named("step"));
  soma::recorder r{sys, *writer, {.run = "followed", .summarising = {"loss"}}};
  std::atomic<bool> done{false};
  std::uint64_t seen = 0, asked = 0;
  std::thread follow([&] {
    std::uint64_t version = 0;
    while (!done) {
      std::this_thread::sleep_for(std::chrono::milliseconds(250));
      try {
        auto v = follower->backend().ask().version();
        if (v == version)
          continue;
        version = v;
        (void)soma::runs(*follower);
        ++asked;
        auto page = soma::forwards(*follower, "followed", seen, 1'000'000);
        seen += page.records.size();
      } catch (const std::exception&) {
        // not there yet
      }
    }
  });
  auto began = clock_type::now();
  std::uint64_t n = 0;
  while (std::chrono::duration<double>(clock_type::now() - began).count() < seconds) {
    auto due = began + std::chrono::duration_cast<clock_type::duration>(
                         std::chrono::duration<double>(static_cast<double>(n) / rate));
    std::this_thread::sleep_until(due);
    (void)g.forward(static_cast<int>(n), {.watching = r});
    r.tell(soma::fact{"loss", {{"value", 1.0 / static_cast<double>(n + 1)}}});
    ++n;
  }
  r.flush();
  auto elapsed = std::chrono::duration<double>(clock_type::now() - began).count();
  std::this_thread::sleep_for(std::chrono::milliseconds(600));
  done = true;
  follow.join();
  // What was written: every record and blob as the store keeps them.
  soma::store local{dir, {.read_only = true}};
  std::uint64_t written = 0;
  auto records = soma::forwards(local, "followed");
  for (auto& rec : records) {
    auto key = "run/followed/" + std::string(8, 'n');
    written += key.size() * 2 + soma::detail::encode_record(rec, key).size()
               + soma::detail::encode_facts(soma::facts(local, "followed", rec.forward), key).size();
  }
  auto moved = received(*follower);
  std::printf("\nfollower of a run recorded through soma:// at %.0f forwards/s for %.1f s (%llu forwards, "
              "%llu looks that found it moved, %llu forwards seen)\n",
              rate, elapsed, static_cast<unsigned long long>(records.size()),
              static_cast<unsigned long long>(asked), static_cast<unsigned long long>(seen));
  std::printf("written %.0f B/s, sent to the follower %.0f B/s: x%.2f (target <= 2x: %s)\n",
              static_cast<double>(written) / elapsed, static_cast<double>(moved) / elapsed,
              static_cast<double>(moved) / static_cast<double>(std::max<std::uint64_t>(written, 1)),
              moved <= 2 * written ? "met" : "MISSED");
  return seen == records.size() ? 0 : 1;
}

// One recorder of the fleet simulation (benchmarks/served/fleet.sh): records
// `rate` forwards a second into `address` for `seconds`, flushing every
// `every` forwards, and prints how long each flush took to be confirmed
// (written and committed by the server): p50, p99 and the most, in ms.
int run_recorder(const std::string& address, const std::string& run, double rate, double seconds,
                 std::size_t every) {
  soma::system_config cfg;
  caf::actor_system sys{cfg};
  auto opened = soma::open_store(sys, address);
  for (int tries = 0; !opened && tries < 50; ++tries) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    opened = soma::open_store(sys, address);
  }
  if (!opened) {
    std::fprintf(stderr, "bench_served --record: cannot open %s\n", address.c_str());
    return 1;
  }
  auto g = soma::graph::somatize(sys, Step{}.named("step"));
  std::vector<double> confirm_ms;
  std::uint64_t n = 0, failed = 0, confirmed = 0; // forwards 0 .. confirmed - 1 are in the store
  {
    soma::recorder r{sys, *opened, {.run = run, .summarising = {"loss"}}};
    auto began = clock_type::now();
    while (std::chrono::duration<double>(clock_type::now() - began).count() < seconds) {
      std::this_thread::sleep_until(began + std::chrono::duration_cast<clock_type::duration>(
                                              std::chrono::duration<double>(static_cast<double>(n) / rate)));
      (void)g.forward(static_cast<int>(n), {.watching = r});
      r.tell(soma::fact{"loss", {{"value", 1.0 / static_cast<double>(n + 1)}}});
      if (++n % every == 0) {
        auto asked = clock_type::now();
        try {
          r.flush();
          confirmed = n;
          confirm_ms.push_back(std::chrono::duration<double, std::milli>(clock_type::now() - asked).count());
        } catch (const std::exception&) {
          ++failed;
        }
      }
    }
  }
  std::sort(confirm_ms.begin(), confirm_ms.end());
  auto at = [&](double q) {
    return confirm_ms.empty() ? 0.0 : confirm_ms[std::min(confirm_ms.size() - 1,
                                                          static_cast<std::size_t>(q * static_cast<double>(confirm_ms.size())))];
  };
  std::printf("recorder %s: %llu forwards, %zu flushes confirmed, %llu failed; confirm ms p50 %.2f "
              "p99 %.2f max %.2f; confirmed through %llu\n",
              run.c_str(), static_cast<unsigned long long>(n), confirm_ms.size(),
              static_cast<unsigned long long>(failed), at(0.5), at(0.99),
              confirm_ms.empty() ? 0.0 : confirm_ms.back(), static_cast<unsigned long long>(confirmed));
  return failed == 0 ? 0 : 1;
}

} // namespace

int main(int argc, char** argv) {
  if (argc >= 2 && std::string{argv[1]} == "--record") {
    if (argc != 7) {
      std::fprintf(stderr, "usage: bench_served --record soma://HOST:PORT RUN RATE SECONDS EVERY\n");
      return 2;
    }
    return run_recorder(argv[2], argv[3], std::stod(argv[4]), std::stod(argv[5]),
                        std::stoul(argv[6]));
  }
  std::size_t runs = 10, forwards = 100000;
  int reps = 5;
  double rate = 10000, seconds = 5;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i];
    if (a == "--runs")
      runs = std::stoul(argv[i + 1]);
    else if (a == "--forwards")
      forwards = std::stoul(argv[i + 1]);
    else if (a == "--reps")
      reps = std::stoi(argv[i + 1]);
    else if (a == "--rate")
      rate = std::stod(argv[i + 1]);
    else if (a == "--seconds")
      seconds = std::stod(argv[i + 1]);
    else {
      std::fprintf(stderr, "usage: bench_served [--runs R (10)] [--forwards N per run (100000)] "
                           "[--reps K (5)] [--rate FORWARDS/S (10000)] [--seconds S (5)]\n");
      return 2;
    }
  }
  soma_bench::scratch_dir scratch{"bench-served"};
  const std::string& root = scratch.path;
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  soma::system_config cfg;
  caf::actor_system sys{cfg};
  int status = run_store(sys, runs, forwards / 10, reps, root);
  status |= run_store(sys, runs, forwards, reps, root);
  status |= run_follower(sys, rate, seconds, root);
  return status;
}
