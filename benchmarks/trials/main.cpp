// bench_trials: what claiming trials costs (benchmarks/README.md, "trials").
//
//   c  claims per second: N claimant processes (1, 4, 8) claim and end every
//      trial of a study as soma::claimant::run does: each trial's end and the
//      next claim in one write transaction (soma::end_and_claim), locally and
//      through soma:// (a soma-node --serve-store on loopback). Beside it, the floor: N processes doing
//      bare LMDB write transactions of one small put each, as durable.
//   l  add to claim: one claimant waits (claim_trial with a wait); the driver
//      adds one trial at a time and the claimant records how long after its
//      adding it claimed it (both clocks are this machine's). Median and p90
//      of 200, locally and through soma://.
//
// Every process starts on one byte from the driver, so they run together.

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include <lmdb.h>

#include "soma/remote/served_store.hpp"
#include "soma/soma.hpp"

extern char** environ;

namespace {

using clock_type = std::chrono::steady_clock;

std::int64_t wall_us() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
           std::chrono::system_clock::now().time_since_epoch())
    .count();
}

// A child of this very program (or soma-node), its stdin and stdout on pipes.
struct child {
  pid_t pid = -1;
  int in = -1, out = -1;
  std::string buffer;

  explicit child(std::vector<std::string> args, bool quiet = false) {
    int to[2], from[2];
    if (pipe2(to, O_CLOEXEC) != 0 || pipe2(from, O_CLOEXEC) != 0)
      throw std::runtime_error("pipe");
    posix_spawn_file_actions_t io;
    posix_spawn_file_actions_init(&io);
    posix_spawn_file_actions_adddup2(&io, to[0], 0);
    posix_spawn_file_actions_adddup2(&io, from[1], 1);
    if (quiet) // a soma-node's log
      posix_spawn_file_actions_addopen(&io, 2, "/dev/null", O_WRONLY, 0);
    std::vector<char*> argv;
    for (auto& a : args)
      argv.push_back(a.data());
    argv.push_back(nullptr);
    if (posix_spawn(&pid, argv[0], &io, nullptr, argv.data(), environ) != 0)
      throw std::runtime_error("cannot start " + args[0]);
    posix_spawn_file_actions_destroy(&io);
    ::close(to[0]);
    ::close(from[1]);
    in = to[1];
    out = from[0];
  }
  ~child() {
    if (pid > 0) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, nullptr, 0);
    }
    ::close(in);
    ::close(out);
  }
  void go() { (void)!::write(in, "g", 1); }
  // Its next line, within 120 s.
  std::string line() {
    auto by = clock_type::now() + std::chrono::seconds(120);
    for (;;) {
      if (auto nl = buffer.find('\n'); nl != std::string::npos) {
        auto l = buffer.substr(0, nl);
        buffer.erase(0, nl + 1);
        return l;
      }
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(by - clock_type::now()).count();
      if (left <= 0)
        throw std::runtime_error("a child said nothing for 120 s");
      pollfd p{out, POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(left)) <= 0)
        continue;
      char buf[512];
      auto n = ::read(out, buf, sizeof buf);
      if (n <= 0)
        throw std::runtime_error("a child ended early");
      buffer.append(buf, static_cast<std::size_t>(n));
    }
  }
};

void wait_for_go() {
  char c;
  (void)!::read(0, &c, 1);
}

void say(const std::string& s) {
  std::printf("%s\n", s.c_str());
  std::fflush(stdout);
}

// child: claims and ends trials of STUDY in STORE until none waits.
int claimer(const std::string& where, const std::string& study) {
  soma::system_config cfg;
  caf::actor_system sys{cfg};
  auto s = soma::open_store(sys, where, {});
  if (!s)
    return 2;
  auto id = "bench-" + std::to_string(getpid());
  say("ready");
  wait_for_go();
  std::uint64_t n = 0;
  auto t = soma::claim_trial(*s, study, id);
  while (t) {
    t = soma::end_and_claim(*s, study, *t, soma::trial_state::done, {{"n", std::int64_t(t->number)}});
    ++n;
  }
  say(std::to_string(n));
  return 0;
}

// child: COUNT bare LMDB write transactions into DIR, one put each.
int floor_writer(const std::string& dir, long count) {
  MDB_env* env = nullptr;
  mdb_env_create(&env);
  mdb_env_set_mapsize(env, std::size_t{1} << 30);
  if (mdb_env_open(env, dir.c_str(), 0, 0644) != 0)
    return 2;
  say("ready");
  wait_for_go();
  std::string key = "k" + std::to_string(getpid()) + "/";
  for (long i = 0; i < count; ++i) {
    MDB_txn* txn = nullptr;
    mdb_txn_begin(env, nullptr, 0, &txn);
    MDB_dbi dbi;
    mdb_dbi_open(txn, nullptr, 0, &dbi);
    auto k = key + std::to_string(i);
    char v[64] = {};
    MDB_val mk{k.size(), k.data()}, mv{sizeof v, v};
    mdb_put(txn, dbi, &mk, &mv, 0);
    mdb_txn_commit(txn);
  }
  mdb_env_close(env);
  say(std::to_string(count));
  return 0;
}

// child: waits for trials of STUDY and ends each with how long after its
// adding (its "added" parameter) it claimed it.
int waiter(const std::string& where, const std::string& study, long count) {
  soma::system_config cfg;
  caf::actor_system sys{cfg};
  auto s = soma::open_store(sys, where, {});
  if (!s)
    return 2;
  say("ready");
  for (long i = 0; i < count; ++i) {
    auto t = soma::claim_trial(*s, study, "waiter-" + std::to_string(getpid()), std::chrono::seconds(30));
    if (!t)
      return 3;
    auto lat = wall_us() - t->params.get<std::int64_t>("added");
    soma::end_trial(*s, study, *t, soma::trial_state::done, {{"us", lat}});
  }
  say("done");
  return 0;
}

std::string self;

// Seconds for `n` children made by `make` to finish after one go; the sum
// of the counts they print.
std::pair<double, std::uint64_t> together(int n, const std::function<std::vector<std::string>()>& make) {
  std::vector<std::unique_ptr<child>> kids;
  for (int i = 0; i < n; ++i)
    kids.push_back(std::make_unique<child>(make()));
  for (auto& k : kids)
    if (k->line() != "ready")
      throw std::runtime_error("a child did not start");
  auto began = clock_type::now();
  for (auto& k : kids)
    k->go();
  std::uint64_t sum = 0;
  for (auto& k : kids)
    sum += std::stoull(k->line());
  auto s = std::chrono::duration<double>(clock_type::now() - began).count();
  return {s, sum};
}

struct served {
  std::unique_ptr<child> node;
  std::string address;
  explicit served(const std::string& dir) {
    node = std::make_unique<child>(std::vector<std::string>{SOMA_NODE_PROGRAM, "--serve-store", dir}, true);
    address = "soma://127.0.0.1:" + node->line();
  }
};

} // namespace

int main(int argc, char** argv) {
  self = std::filesystem::canonical("/proc/self/exe").string();
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  if (argc >= 4 && std::string{argv[1]} == "--claimer")
    return claimer(argv[2], argv[3]);
  if (argc >= 4 && std::string{argv[1]} == "--floor")
    return floor_writer(argv[2], std::atol(argv[3]));
  if (argc >= 5 && std::string{argv[1]} == "--waiter")
    return waiter(argv[2], argv[3], std::atol(argv[4]));
  std::size_t trials = 1000, latency = 200;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i];
    if (a == "--trials")
      trials = std::stoul(argv[i + 1]);
    else if (a == "--latency")
      latency = std::stoul(argv[i + 1]);
    else {
      std::fprintf(stderr, "usage: bench_trials [--trials N (1000)] [--latency N (200)]\n");
      return 2;
    }
  }
  char tmpl[] = "/tmp/bench-trials-XXXXXX";
  std::string root = ::mkdtemp(tmpl);
  struct cleanup {
    std::string d;
    ~cleanup() { std::filesystem::remove_all(d); }
  } gone{root};
  int run = 0;
  auto fresh = [&] {
    auto d = root + "/s" + std::to_string(run++);
    std::filesystem::create_directories(d);
    return d;
  };
  std::vector<soma::values> params(trials);
  for (std::size_t i = 0; i < trials; ++i)
    params[i] = {{"i", std::int64_t(i)}};

  std::printf("bench_trials: %zu trials a study; a trial's end and the next claim are one durable "
              "write transaction (end_and_claim); floor: bare LMDB write transactions of one "
              "64-byte put, as durable\n\n",
              trials);
  std::printf("%-44s %12s %14s %10s  %s\n", "row", "trials/s", "floor txn/s", "x floor", "target");
  bool ok = true;
  for (int n : {1, 4, 8}) {
    auto fd = fresh();
    auto [fs, fcount] = together(n, [&] {
      return std::vector<std::string>{self, "--floor", fd, std::to_string(trials / n)};
    });
    double floor_txn = static_cast<double>(fcount) / fs;
    for (bool remote : {false, true}) {
      auto d = fresh();
      std::optional<served> server;
      std::string where = d;
      {
        soma::store s{d};
        soma::add_trials(s, "bench", params);
      }
      if (remote) {
        server.emplace(d);
        where = server->address;
      }
      auto [secs, done] = together(n, [&] { return std::vector<std::string>{self, "--claimer", where, "bench"}; });
      double rate = static_cast<double>(done) / secs;
      // Each trial done exactly once.
      soma::store check{d, {.read_only = true}};
      std::size_t doneonce = 0;
      for (auto& t : soma::trials(check, "bench"))
        doneonce += t.state == soma::trial_state::done && t.attempt == 1;
      if (done != trials || doneonce != trials) {
        std::printf("problem: %zu of %zu trials done once (%llu reported)\n", doneonce, trials,
                    static_cast<unsigned long long>(done));
        ok = false;
      }
      char name[64];
      std::snprintf(name, sizeof name, "c  %d claimant%s, %s", n, n == 1 ? "" : "s",
                    remote ? "through soma:// (loopback)" : "local store");
      std::string target;
      if (n == 8 && !remote)
        target = std::string{">= 5000 claims/s: "} + (rate >= 5000 ? "met" : "MISSED");
      std::printf("%-44s %12.0f %14.0f %10.2f  %s\n", name, rate, floor_txn, rate / floor_txn,
                  target.c_str());
    }
  }

  std::printf("\n%-44s %12s %12s  %s\n", "row", "median ms", "p90 ms", "target");
  for (bool remote : {false, true}) {
    auto d = fresh();
    std::optional<served> server;
    std::string where = d;
    soma::store s{d};
    soma::add_trials(s, "wait", {});
    if (remote) {
      server.emplace(d);
      where = server->address;
    }
    child w{{self, "--waiter", where, "wait", std::to_string(latency)}};
    if (w.line() != "ready")
      throw std::runtime_error("the waiter did not start");
    for (std::size_t i = 0; i < latency; ++i) {
      soma::add_trials(s, "wait", {{{"added", wall_us()}}});
      // The next is added once this one is done: the claimant is waiting again.
      auto by = clock_type::now() + std::chrono::seconds(30);
      while (soma::trials(s, "wait").back().state != soma::trial_state::done) {
        if (clock_type::now() > by)
          throw std::runtime_error("trial " + std::to_string(i) + " was not claimed within 30 s ("
                                   + (remote ? "through soma://" : "local") + ")");
        std::this_thread::sleep_for(std::chrono::microseconds(200));
      }
      // Some time between them, so that the claimant waits, as in a sweep.
      std::this_thread::sleep_for(std::chrono::milliseconds(3));
    }
    std::vector<double> ms;
    for (auto& t : soma::trials(s, "wait"))
      ms.push_back(static_cast<double>(t.result.get<std::int64_t>("us")) / 1000);
    std::sort(ms.begin(), ms.end());
    auto med = ms[ms.size() / 2], p90 = ms[ms.size() * 9 / 10];
    std::printf("%-44s %12.3f %12.3f  %s\n",
                remote ? "l  add to claim, through soma:// (loopback)" : "l  add to claim, local store",
                med, p90, remote ? "" : (std::string{"< 5 ms: "} + (med < 5 ? "met" : "MISSED")).c_str());
  }
  return ok ? 0 : 1;
}
