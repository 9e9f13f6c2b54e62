// bench_window: any client asking a served store for a long window. A run
// of --forwards forwards (10,000,000 by default, a 3.3 GB store) is read
// whole through soma://, over and over, by three readers (its forwards in
// pages of 100,000, its nodes' tally, its loss curve), while a recorder
// writes through the same server and times each confirmed flush. It says
// what the server's memory did (RSS, and of it the server's own, RssAnon,
// apart from the store's mapped pages) and how much later the writer's
// commits were confirmed than with nobody reading. Its last line is one
// JSON object (benchmarks/README.md, "bench_window").
//
//   bench_window [--forwards 10000000] [--seconds 20] [--store DIR]
//
// The writer writes alone for --seconds, then for twice the time the three
// readers took on the local store (at least --seconds) while they read.
//
// With --store DIR the store is kept there: filled when DIR has none, used
// when it has a run0 of --forwards forwards, refused otherwise (nothing in
// it is removed). A second run then does not write the store again.
//
// Targets (issue 36): every part bounded; the server's own memory (RssAnon)
// within 100 MB of its idle figure, RSS counting the store's pages the
// server read besides; no commit of the concurrent writer later than 50 ms
// past a usual one (the writer alone's median). Memory is in MiB (as /proc
// gives it), the store and the wire in MB.

#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include <caf/actor_system.hpp>

#include "filled.hpp"
#include "recorders.hpp"
#include "server.hpp"
#include "soma/remote/served_store.hpp"
#include "soma/served/questions.hpp"
#include "soma/store/readers.hpp"
#include "soma/system_config.hpp"

namespace {

using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point t) {
  return std::chrono::duration<double>(clock_type::now() - t).count();
}

struct options {
  std::size_t forwards = 10'000'000;
  double seconds = 20;
  std::string store; // empty: a scratch directory
};

// A recorder into `address` at 1,000 forwards/s for `seconds`, flushing
// every 100, as its own process; waits for it, at most `seconds` + 60 s.
// What it said, once it confirmed at least one flush.
soma_bench::recorder_said record(const std::string& address, const std::string& run, double seconds,
                                 const std::string& out) {
  auto pid = soma_bench::start_recorder(address, run, seconds, out);
  if (pid <= 0)
    throw std::runtime_error("cannot start " SOMA_BENCH_SERVED);
  auto until = clock_type::now() + std::chrono::duration_cast<clock_type::duration>(
                                     std::chrono::duration<double>(seconds + 60));
  int status = 0;
  while (::waitpid(pid, &status, WNOHANG) == 0) {
    if (clock_type::now() > until) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      throw std::runtime_error("the recorder did not end within its time and 60 s");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  auto said = soma_bench::read_recorder(out);
  if (!said.said || said.flushes == 0)
    throw std::runtime_error("the recorder confirmed no flush (exit status " + std::to_string(status)
                             + "; see " + out + ")");
  return said;
}

std::uint64_t received(const soma::store& s) {
  return dynamic_cast<soma::served::remote_answers&>(s.backend().ask()).received();
}

// The three readers of the window; each returns how many items it read.
struct reader {
  const char* name;
  std::function<std::uint64_t(const soma::store&)> read;
};

std::vector<reader> readers() {
  return {
    {"forwards, in pages of 100,000", [](const soma::store& s) {
       std::uint64_t seen = 0;
       for (;;) {
         auto page = soma::forwards(s, "run0", seen, 100'000);
         seen += page.records.size();
         if (page.records.empty() || seen >= page.total)
           return seen;
       }
     }},
    {"nodes (the whole run)", [](const soma::store& s) {
       std::uint64_t ran = 0;
       for (auto& n : soma::nodes(s, "run0"))
         ran += n.ran;
       return ran;
     }},
    {"curve loss", [](const soma::store& s) {
       return static_cast<std::uint64_t>(soma::curve(s, "run0", "loss").size());
     }},
  };
}

// Whether `dir` holds a store whose run0 has `forwards` forwards.
bool holds_run(const std::string& dir, std::size_t forwards) {
  try {
    soma::store s{dir, {.read_only = true}};
    return soma::run_summary(s, "run0").forwards == forwards;
  } catch (const std::exception&) {
    return false;
  }
}

int run(const options& o) {
  soma_bench::scratch_dir scratch{"bench-window"}; // the writers' lines, and the store unless --store
  std::string dir = o.store.empty() ? scratch.path + "/store" : o.store;
  std::filesystem::create_directories(dir);
  if (std::filesystem::exists(dir + "/data.mdb")) {
    if (!holds_run(dir, o.forwards))
      throw std::runtime_error(dir + " holds a store without a run0 of " + std::to_string(o.forwards)
                               + " forwards; give --store an empty directory, or one bench_window "
                                 "filled with the same --forwards");
  } else {
    auto began = clock_type::now();
    soma_bench::fill(dir, 1, o.forwards, [&](std::size_t done) {
      std::printf("  written %zu forwards in %.0f s\n", done, seconds_since(began));
    });
    std::printf("filled in %.1f s\n", seconds_since(began));
  }
  auto store_mb = static_cast<double>(std::filesystem::file_size(dir + "/data.mdb")) / 1e6;
  std::printf("bench_window: run0 of %zu forwards, a %.0f MB store at %s\n", o.forwards, store_mb,
              dir.c_str());

  // Each reader on the local store first, once, for scale.
  std::vector<double> local_s;
  {
    soma::store local{dir, {.read_only = true}};
    for (auto& r : readers()) {
      auto began = clock_type::now();
      auto n = r.read(local);
      local_s.push_back(seconds_since(began));
      std::printf("  local    %-32s %10llu items in %7.2f s\n", r.name, static_cast<unsigned long long>(n),
                  local_s.back());
    }
  }

  soma_bench::served_node srv{dir};
  std::this_thread::sleep_for(std::chrono::seconds(1));
  auto idle = soma_bench::sample(srv.pid);
  std::printf("server idle: RSS %.1f MiB (its own %.1f, the store's mapped pages %.1f)\n", idle.rss_mb,
              idle.anon_mb, idle.file_mb);

  auto alone = record(srv.address, "writer-alone", o.seconds, scratch.path + "/writer-alone.txt");
  std::printf("writer alone, %.0f s: confirm ms p50 %.2f p99 %.2f max %.2f, %llu failed\n", o.seconds,
              alone.p50, alone.p99, alone.max, alone.failed);

  soma::system_config cfg;
  caf::actor_system sys{cfg};
  auto opened = soma::open_store(sys, srv.address, {.read_only = true});
  if (!opened) {
    std::fprintf(stderr, "cannot open %s\n", srv.address.c_str());
    return 1;
  }
  auto& served = *opened;
  std::atomic<bool> writing{true}, reading{true};
  soma_bench::proc_sample peak = idle;
  std::thread watch([&] {
    while (reading) {
      auto now = soma_bench::sample(srv.pid);
      peak.rss_mb = std::max(peak.rss_mb, now.rss_mb);
      peak.anon_mb = std::max(peak.anon_mb, now.anon_mb);
      peak.file_mb = std::max(peak.file_mb, now.file_mb);
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  });
  // The writer goes on for twice what the three readers took locally, so a
  // whole pass through soma:// is read while it writes.
  double local_total = 0;
  for (auto s : local_s)
    local_total += s;
  double write_s = std::max(o.seconds, 2 * local_total);
  soma_bench::recorder_said during;
  std::exception_ptr writer_failed, reader_failed;
  std::thread writer([&] {
    try {
      during = record(srv.address, "writer-during", write_s, scratch.path + "/writer-during.txt");
    } catch (...) {
      writer_failed = std::current_exception();
    }
    writing = false;
  });
  // Whole passes over the window while the writer writes; at least one. A
  // pass's times count when it ended while the writer still wrote.
  auto rs = readers();
  std::vector<std::vector<double>> there_s(rs.size());
  std::uint64_t wire = 0, passes = 0, contended = 0;
  try {
    do {
      auto before = received(served);
      std::vector<double> pass;
      for (auto& r : rs) {
        auto began = clock_type::now();
        auto n = r.read(served);
        pass.push_back(seconds_since(began));
        std::printf("  soma:// %-32s %10llu items in %7.2f s%s\n", r.name, static_cast<unsigned long long>(n),
                    pass.back(), writing ? "" : " (after the writer ended)");
      }
      wire = received(served) - before;
      ++passes;
      if (writing || passes == 1) {
        contended += writing ? 1 : 0;
        for (std::size_t i = 0; i < rs.size(); ++i)
          there_s[i].push_back(pass[i]);
      }
    } while (writing);
  } catch (...) {
    reader_failed = std::current_exception();
  }
  reading = false;
  writer.join(); // within write_s + 60 s (record's bound)
  watch.join();
  if (reader_failed)
    std::rethrow_exception(reader_failed);
  if (writer_failed)
    std::rethrow_exception(writer_failed);
  if (contended == 0)
    std::printf("(no pass ended while the writer wrote: the first pass's times are given)\n");

  auto growth = peak.anon_mb - idle.anon_mb;
  auto delay = during.max - alone.p50;
  std::printf("server while read: RSS at most %.1f MiB (its own %.1f, +%.1f over idle: %s; the store's "
              "mapped pages %.1f)\n",
              peak.rss_mb, peak.anon_mb, growth, growth <= 100 ? "met" : "MISSED", peak.file_mb);
  std::printf("writer while read, %.0f s: confirm ms p50 %.2f p99 %.2f max %.2f, %llu failed; the most "
              "later than alone's median: %.2f ms (target <= 50: %s)\n",
              write_s, during.p50, during.p99, during.max, during.failed, delay,
              delay <= 50 ? "met" : "MISSED");
  auto best = [](const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); };
  std::printf("{\"forwards\": %zu, \"store_mb\": %.0f, \"passes\": %llu, \"contended_passes\": %llu, \"wire_mb_per_pass\": %.1f, "
              "\"forwards_s\": %.2f, \"forwards_local_s\": %.2f, \"nodes_s\": %.2f, \"nodes_local_s\": %.2f, "
              "\"curve_s\": %.2f, \"curve_local_s\": %.2f, \"idle_rss_mb\": %.1f, \"idle_anon_mb\": %.1f, "
              "\"peak_rss_mb\": %.1f, \"peak_anon_mb\": %.1f, \"anon_growth_mb\": %.1f, "
              "\"writer_alone_ms\": [%.2f, %.2f, %.2f], \"writer_during_ms\": [%.2f, %.2f, %.2f], "
              "\"commit_delay_ms\": %.2f, \"writer_failed\": %llu}\n",
              o.forwards, store_mb, static_cast<unsigned long long>(passes), static_cast<unsigned long long>(contended), static_cast<double>(wire) / 1e6, best(there_s[0]), local_s[0],
              best(there_s[1]), local_s[1], best(there_s[2]), local_s[2], idle.rss_mb, idle.anon_mb,
              peak.rss_mb, peak.anon_mb, growth, alone.p50, alone.p99, alone.max, during.p50, during.p99,
              during.max, delay, alone.failed + during.failed);
  return alone.failed + during.failed == 0 ? 0 : 1;
}

} // namespace

int main(int argc, char** argv) {
  options o;
  for (int i = 1; i < argc; i += 2) {
    std::string a = argv[i];
    if (i + 1 >= argc) {
      std::fprintf(stderr, "bench_window: %s needs a value\n", a.c_str());
      return 2;
    }
    if (a == "--forwards")
      o.forwards = std::stoul(argv[i + 1]);
    else if (a == "--seconds")
      o.seconds = std::stod(argv[i + 1]);
    else if (a == "--store")
      o.store = argv[i + 1];
    else {
      std::fprintf(stderr, "usage: bench_window [--forwards N (10000000)] [--seconds S (20)] [--store DIR]\n");
      return 2;
    }
  }
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  try {
    return run(o);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_window: %s\n", e.what());
    return 1;
  }
}
