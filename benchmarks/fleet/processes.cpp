// The fleet benchmark's rows that run real programs: the `soma` command on
// the benchmark's store, and idle soma-node workers with and without
// readings, whose CPU time is read from /proc while they sit there.

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "../forward/bench.hpp"
#include "bench.hpp"
#include "soma/store/readings.hpp"

extern char** environ;

namespace bench {

namespace {

// A child process, reaped when this goes: SIGTERM, then SIGKILL after 5 s.
class child {
public:
  // Starts `args`; its stdout is a pipe this reads (or /dev/null), stderr /dev/null.
  child(const std::vector<std::string>& args, bool read_stdout) {
    int fds[2] = {-1, -1};
    if (read_stdout && pipe(fds) != 0)
      return;
    posix_spawn_file_actions_t acts;
    posix_spawn_file_actions_init(&acts);
    if (read_stdout) {
      posix_spawn_file_actions_adddup2(&acts, fds[1], 1);
      posix_spawn_file_actions_addclose(&acts, fds[0]);
    } else {
      posix_spawn_file_actions_addopen(&acts, 1, "/dev/null", O_WRONLY, 0);
    }
    posix_spawn_file_actions_addopen(&acts, 2, "/dev/null", O_WRONLY, 0);
    std::vector<char*> argv;
    for (auto& a : args)
      argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    if (posix_spawn(&pid_, argv[0], &acts, nullptr, argv.data(), environ) != 0)
      pid_ = -1;
    posix_spawn_file_actions_destroy(&acts);
    if (read_stdout) {
      close(fds[1]);
      out_ = fds[0];
    }
  }
  ~child() {
    if (out_ >= 0)
      close(out_);
    if (pid_ > 0 && !reaped_)
      stop();
  }
  child(const child&) = delete;
  child& operator=(const child&) = delete;

  [[nodiscard]] pid_t pid() const noexcept { return pid_; }

  // Its first line of stdout (a worker's port: it is listening), or "" after
  // `seconds` or at its end.
  std::string first_line(int seconds) {
    std::string line;
    auto deadline = clock::now() + std::chrono::seconds(seconds);
    while (out_ >= 0 && clock::now() < deadline) {
      pollfd p{out_, POLLIN, 0};
      if (poll(&p, 1, 100) <= 0)
        continue;
      char c = 0;
      if (read(out_, &c, 1) != 1 || c == '\n')
        break;
      line += c;
    }
    return line;
  }

  // Waits for it to exit by itself; its exit status, or -1.
  int wait() {
    int status = 0;
    if (pid_ <= 0 || waitpid(pid_, &status, 0) != pid_)
      return -1;
    reaped_ = true;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }

  void stop() {
    kill(pid_, SIGTERM);
    for (int i = 0; i < 500; ++i) {
      if (waitpid(pid_, nullptr, WNOHANG) == pid_) {
        reaped_ = true;
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
    reaped_ = true;
  }

private:
  pid_t pid_ = -1;
  int out_ = -1;
  bool reaped_ = false;
};

// CPU time of `pid` so far, in ms: all its threads, and those CAF runs
// detached actors and its clock on ("caf.actor", "caf.clock"), where the
// reporter's work is, without the scheduler's workers, whose idle polling is
// most of an idle worker's CPU and most of its noise. The first field of
// /proc/<pid>/task/<tid>/schedstat is the nanoseconds a thread ran (where
// /proc/<pid>/stat counts 10 ms ticks, too coarse for an idle process).
struct cpu_time {
  double all = -1;
  double detached = 0;
};

cpu_time cpu_ms(pid_t pid) {
  auto dir = "/proc/" + std::to_string(pid) + "/task";
  std::unique_ptr<DIR, int (*)(DIR*)> tasks{opendir(dir.c_str()), closedir};
  cpu_time t;
  if (!tasks)
    return t;
  t.all = 0;
  while (auto* e = readdir(tasks.get())) {
    if (e->d_name[0] == '.')
      continue;
    auto task = dir + "/" + e->d_name;
    std::ifstream in{task + "/schedstat"}, named{task + "/comm"};
    double run_ns = 0;
    std::string name;
    if (!(in >> run_ns))
      continue;
    named >> name;
    t.all += run_ns / 1e6;
    if (name == "caf.actor" || name == "caf.clock")
      t.detached += run_ns / 1e6;
  }
  return t;
}

double seconds_since(clock::time_point t) {
  return std::chrono::duration<double>(clock::now() - t).count();
}

} // namespace

std::vector<timed_row> command_rows(const std::string& store_dir, const fleet_options& opt) {
  auto run = [&](timed_row& r, std::vector<std::string> args) {
    args.emplace(args.begin(), SOMA_CLI_PROGRAM);
    for (std::size_t i = 0; i <= opt.reps; ++i) { // the first warms up
      auto t = clock::now();
      child c{args, false};
      int rc = c.wait();
      if (i > 0)
        r.ms.push_back(seconds_since(t) * 1e3);
      if (rc != 0)
        r.problems.push_back(r.name + ": exited with " + std::to_string(rc));
    }
  };
  timed_row e{"e  soma --version: a process (floor)"};
  run(e, {"--version"});
  timed_row f{"f  soma standing --store S"};
  f.floor_ms = row::median_of(e.ms);
  run(f, {"standing", "--store", store_dir});
  timed_row g{"g  soma fleet RUN --store S --json"};
  g.floor_ms = f.floor_ms;
  run(g, {"fleet", fleet_run, "--store", store_dir, "--json"});
  return {e, f, g};
}

worker_cost measure_worker(const fleet_options& opt) {
  worker_cost cost;
  cost.variants.push_back({"no --store (reference)", ""});
  cost.variants.push_back({"--store S --reporting 0.5", opt.dir + "/worker"});
  // The same on tmpfs, where fdatasync does nothing: what the durable
  // commit costs, beside what the reading itself costs.
  std::string shm = "/dev/shm/bench_fleet.XXXXXX";
  bool tmpfs = std::filesystem::is_directory("/dev/shm") && mkdtemp(shm.data());
  if (tmpfs)
    cost.variants.push_back({"  the same, S on tmpfs (no disk sync)", shm + "/worker"});
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  for (std::size_t rep = 0; rep < opt.worker_reps && cost.problems.empty(); ++rep) {
    // All at once, so that whatever else the machine does lands on each.
    std::vector<std::unique_ptr<child>> workers;
    for (auto& v : cost.variants) {
      std::vector<std::string> args{SOMA_NODE_PROGRAM};
      if (!v.store.empty())
        args.insert(args.end(), {"--store", v.store + std::to_string(rep), "--reporting", "0.5"});
      workers.push_back(std::make_unique<child>(args, true));
    }
    for (auto& w : workers)
      if (w->first_line(10).empty())
        cost.problems.emplace_back("a soma-node did not start listening within 10 s");
    if (!cost.problems.empty())
      break;
    // Worker i's id, as it names itself (soma::machine_sampler).
    auto id = [&](std::size_t i) {
      return std::string{*host ? host : "unknown"} + "-" + std::to_string(workers[i]->pid());
    };
    auto now_us = [] {
      return std::chrono::duration_cast<std::chrono::microseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
    };
    // A worker that has reported for five minutes keeps the retention bound
    // of readings, and each new one drops the oldest: give each worker that
    // history, older than anything it writes, so its cost is the steady one.
    for (std::size_t i = 0; i < workers.size(); ++i) {
      if (cost.variants[i].store.empty())
        continue;
      soma::store s{cost.variants[i].store + std::to_string(rep)};
      auto oldest = now_us() - 1000000 - static_cast<std::int64_t>(soma::kept_per_machine) * 500000;
      for (std::size_t k = 0; k < soma::kept_per_machine; ++k)
        soma::put_reading(s, {id(i), 0.1, 0.2, 2, 0, 0,
                              oldest + static_cast<std::int64_t>(k) * 500000});
    }
    // Readings worker i wrote since `since_us` (its clock is this machine's).
    auto written = [&](std::size_t i, std::int64_t since_us) -> double {
      if (cost.variants[i].store.empty())
        return 0;
      soma::store s{cost.variants[i].store + std::to_string(rep), {.read_only = true}};
      auto kept = soma::readings(s, id(i));
      return static_cast<double>(std::count_if(kept.begin(), kept.end(), [&](const soma::reading& r) {
        return r.when_us >= since_us;
      }));
    };
    // Past start-up: loading, the actor system, the first reading.
    std::this_thread::sleep_for(std::chrono::seconds(1));
    std::vector<cpu_time> cpu0;
    for (std::size_t i = 0; i < workers.size(); ++i)
      cpu0.push_back(cpu_ms(workers[i]->pid()));
    auto since_us = now_us();
    auto began = clock::now();
    std::this_thread::sleep_for(std::chrono::seconds(opt.idle_s));
    double wall_ms = seconds_since(began) * 1e3;
    for (std::size_t i = 0; i < workers.size(); ++i) {
      auto cpu1 = cpu_ms(workers[i]->pid());
      auto& v = cost.variants[i];
      if (cpu0[i].all < 0 || cpu1.all < 0)
        cost.problems.emplace_back("could not read a worker's /proc/<pid>/task/*/schedstat");
      v.pct.push_back((cpu1.all - cpu0[i].all) / wall_ms * 100);
      v.detached_pct.push_back((cpu1.detached - cpu0[i].detached) / wall_ms * 100);
      v.readings.push_back(written(i, since_us));
      if (!v.store.empty() && v.readings.back() <= 0)
        cost.problems.push_back(v.name + ": wrote no reading while idle");
    }
  }
  if (tmpfs) {
    std::error_code ignored;
    std::filesystem::remove_all(shm, ignored);
  }
  return cost;
}

} // namespace bench
