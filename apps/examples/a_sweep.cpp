// "A sweep": a study of six learning rates, claimed by two `soma-node
// --claim` processes from one store. One is SIGKILLed mid-trial: its trial
// stays claimed and its quiet_s grows while the other writes; the rule hands
// it back, the other finishes it, and the record keeps the abandoned attempt.
//
// Usage: a_sweep [DIR]   (the store, the logs and study.svg go there;
//                          default: a fresh directory under $TMPDIR, else /tmp)

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "soma/draw/study.hpp"
#include "soma/soma.hpp"
#include "store_dir.hpp"

extern char** environ;

namespace {

// Starts `soma-node --claim lr` with its output into `log`.
pid_t claimant(const std::string& store, const std::string& log) {
  std::vector<std::string> args{SOMA_NODE_PROGRAM, "--claim", "lr", "--store", store,
                                "--nodes", SOMA_SWEEP_TRIALS, "--reporting", "0.2",
                                "--claim-wait", "2"};
  std::vector<char*> argv;
  for (auto& a : args)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t io;
  posix_spawn_file_actions_init(&io);
  posix_spawn_file_actions_addopen(&io, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&io, 1, 2);
  pid_t pid = -1;
  if (posix_spawn(&pid, argv[0], &io, nullptr, argv.data(), environ) != 0)
    throw std::runtime_error("cannot start " + args[0]);
  posix_spawn_file_actions_destroy(&io);
  return pid;
}

// Waits (polling the store every 20 ms, at most 60 s) until `ready()`.
template <class F>
void until(F ready, const char* what) {
  auto by = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!ready()) {
    if (std::chrono::steady_clock::now() > by)
      throw std::runtime_error(std::string{"gave up waiting for "} + what);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

std::string machine_id(pid_t pid) {
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  return std::string{host} + "-" + std::to_string(pid);
}

// Prints each trial of the study: its rate, state, attempt and claimant,
// its loss (or error), and the attempts abandoned before it.
void print_trials(const soma::store& store) {
  for (auto& t : soma::trials(store, "lr")) {
    std::printf("trial %llu  lr=%-5s %-6s attempt %u by %s",
                static_cast<unsigned long long>(t.number), soma::text(*t.params.find("lr")).c_str(),
                soma::to_string(t.state), t.attempt, t.claimant.c_str());
    if (t.state == soma::trial_state::done)
      std::printf("  loss %s", soma::text(*t.result.find("loss")).c_str());
    else
      std::printf("  (%s)", t.error.c_str());
    for (auto& gone : t.abandoned)
      std::printf("\n          attempt %u by %s abandoned: %s", gone.attempt, gone.claimant.c_str(),
                  gone.why.c_str());
    std::printf("\n");
  }
}

} // namespace

int main(int argc, char** argv) try {
  std::string dir = store_dir(argc, argv, "a-sweep");
  std::filesystem::create_directories(dir);
  const std::string kept = dir + "/store";
  soma::store store{kept};
  if (!soma::studies(store).empty()) {
    std::fprintf(stderr, "a_sweep: %s has a study already; give a fresh directory\n", kept.c_str());
    return 1;
  }
  // Six trials, one per learning rate; the study names the function that runs them.
  auto added = soma::add_trials(store, "lr",
                                soma::grid({{"lr", {0.05, 0.1, 0.2, 0.5, 1.0, 2.5}}}), "lr_sweep");
  std::printf("study lr: %zu trials added to %s\n", added.size(), kept.c_str());

  pid_t a = claimant(kept, dir + "/a.log"), b = claimant(kept, dir + "/b.log");
  auto a_id = machine_id(a);
  std::printf("two claimants: %s and %s\n", a_id.c_str(), machine_id(b).c_str());

  // Kill a mid-trial: once a trial it holds has recorded five forwards.
  std::uint64_t held = 0;
  until([&] {
    for (auto& t : soma::trials(store, "lr"))
      if (t.state == soma::trial_state::claimed && t.claimant == a_id) {
        try {
          if (soma::forwards(store, t.run).size() >= 5) {
            held = t.number;
            return true;
          }
        } catch (const soma::no_run_error&) {
        }
      }
    return false;
  }, "a trial of the first claimant");
  ::kill(a, SIGKILL);
  ::waitpid(a, nullptr, 0);
  std::printf("SIGKILLed %s mid-trial %llu\n", a_id.c_str(), static_cast<unsigned long long>(held));

  // Nothing times it out: it stays claimed while its quiet_s grows.
  auto quiet_of = [&] {
    auto latest = soma::standing(store);
    return soma::quietness{latest}.of(latest.at(a_id));
  };
  until([&] { return quiet_of() > 1.5; }, "the killed claimant to be quiet");
  std::printf("trial %llu is still %s by %s, quiet for %.1f s\n",
              static_cast<unsigned long long>(held),
              soma::to_string(soma::trials(store, "lr")[held].state), a_id.c_str(), quiet_of());

  // The rule, stated: claimed by a claimant more than 1 s behind the newest writer.
  for (auto n : soma::reclaim(store, "lr", 1.0))
    std::printf("reclaim --quiet-over 1: handed back trial %llu\n", static_cast<unsigned long long>(n));

  until([&] {
    for (auto& t : soma::trials(store, "lr"))
      if (t.state != soma::trial_state::done && t.state != soma::trial_state::broke)
        return false;
    return true;
  }, "the study to finish");
  int status = 0;
  ::waitpid(b, &status, 0); // it stops once no trial comes for --claim-wait 2
  std::printf("the other claimant stopped (exit %d)\n\n", WEXITSTATUS(status));

  print_trials(store);
  auto figure = soma::draw::study(store, "lr");
  figure.save(dir + "/study.svg");
  std::printf("\ndrew %s\nsoma trials lr --store %s   shows the same rows\n",
              (dir + "/study.svg").c_str(), kept.c_str());
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "a_sweep: %s\n", e.what());
  return 1;
}
