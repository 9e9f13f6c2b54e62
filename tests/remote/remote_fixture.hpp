#pragma once

// What the remote tests share: an actor system, workers started from the
// built soma-node, and the facts of one forward.

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <sys/syscall.h>
#include <poll.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "../actors/fixture.hpp"
#include "soma/remote/broker.hpp"
#include "soma/remote/worker.hpp"
#include "test_nodes.hpp"

namespace soma_test {

inline const std::string node_program = SOMA_NODE_PROGRAM;
inline const std::string test_nodes = SOMA_TEST_NODES;
inline const std::string test_nodes_v2 = SOMA_TEST_NODES_V2;

/// A worker serving the test node library, in mode project.
inline soma::worker serving(caf::actor_system& sys, std::vector<std::string> more = {}) {
  std::vector<std::string> command{node_program, "--nodes", test_nodes};
  command.insert(command.end(), more.begin(), more.end());
  return soma::worker::spawn(sys, command, soma::mode::project);
}

/// The facts of one forward, collected as a callable watcher.
struct seen {
  std::vector<soma::fact> facts;
  auto watcher() {
    return [this](const soma::fact& f) { facts.push_back(f); };
  }
  /// The facts named `name`.
  std::vector<soma::fact> named(const std::string& name) const {
    std::vector<soma::fact> out;
    for (auto& f : facts)
      if (f.name == name)
        out.push_back(f);
    return out;
  }
};

/// Waits until `done()` holds, checking every 20 ms, for at most `limit`;
/// whether it came.
template <class F>
bool within(std::chrono::milliseconds limit, F done) {
  auto until = std::chrono::steady_clock::now() + limit;
  while (!done()) {
    if (std::chrono::steady_clock::now() > until)
      return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
}

/// How long a test waits for what a started process or a loaded machine
/// owes it (a port, a first reading, a slice taken, a line in a log):
/// generous, since start-up is never what a test proves. A bound a test
/// does prove is its own, measured from the fault.
inline constexpr std::chrono::seconds startup_deadline{30};

/// Waits until `done()` holds, for at most startup_deadline; whether it came.
template <class F>
bool eventually(F done) {
  return within(startup_deadline, done);
}

/// Waits up to `within` for `pid` to exit; its wait status, or -1. Woken by
/// the exit itself (a pidfd turns readable when its process ends).
inline int reaped_within(pid_t pid, std::chrono::milliseconds within) {
  int fd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
  if (fd < 0)
    return -1;
  pollfd p{fd, POLLIN, 0};
  int ready = ::poll(&p, 1, static_cast<int>(within.count()));
  ::close(fd);
  int status = -1;
  if (ready == 1 && waitpid(pid, &status, 0) == pid)
    return status;
  return -1;
}

/// The text of the file at `path` (empty when there is none).
inline std::string read_all(const std::filesystem::path& path) {
  std::ifstream in{path};
  std::stringstream all;
  all << in.rdbuf();
  return all.str();
}

/// The text of the file at `path`, once it holds `line` (startup_deadline
/// at most); what it held then, if it never did.
inline std::string wait_for_line(const std::filesystem::path& path, const std::string& line) {
  std::string text;
  (void) eventually([&] {
    text = read_all(path);
    return text.find(line) != std::string::npos;
  });
  return text;
}

/// Whether `f` has a field `key`.
inline bool has(const soma::fact& f, std::string_view key) {
  for (auto& x : f.fields)
    if (x.key == key)
      return true;
  return false;
}

/// Every fact as one JSON line, for a failing check's message.
inline std::string said(const std::vector<soma::fact>& facts) {
  std::string out;
  for (auto& f : facts)
    out += "\n  " + soma::to_json(f);
  return out;
}

/// A process the test started: `args` with stdout on `out_fd` and stdin on
/// /dev/null. It dies with the test process however that goes (a crash, a
/// fatal check): none is left reporting, serving or holding a port. Killed
/// with SIGTERM and reaped when this goes, unless `pid` was set to -1.
struct child_process {
  pid_t pid = -1;

  child_process(const std::vector<std::string>& args, int out_fd) {
    pid = fork();
    if (pid < 0)
      throw std::runtime_error("cannot start " + args.at(0));
    if (pid == 0) {
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      int none = ::open("/dev/null", O_RDONLY);
      dup2(none, STDIN_FILENO);
      dup2(out_fd, STDOUT_FILENO);
      std::vector<char*> argv;
      for (auto& a : args)
        argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      execvp(argv[0], argv.data());
      _exit(127);
    }
    close(out_fd); // the child has it now
  }

  ~child_process() {
    if (pid > 0) {
      kill(pid, SIGTERM);
      waitpid(pid, nullptr, 0);
    }
  }

  child_process(const child_process&) = delete;
  child_process& operator=(const child_process&) = delete;
};

/// A soma-node started by hand (not connected to): its pid and the port it
/// printed as its first line.
struct node_process : child_process {
  std::uint16_t port = 0;

  explicit node_process(const std::vector<std::string>& args) : node_process(args, pipe_ends()) {}

private:
  struct ends {
    int read = -1, write = -1;
  };
  static ends pipe_ends() {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0)
      throw std::runtime_error("cannot make a pipe for a soma-node");
    return {fds[0], fds[1]};
  }

  node_process(const std::vector<std::string>& args, ends out) : child_process(args, out.write) {
    // The port line, within startup_deadline however loaded the machine;
    // nothing when the child exits first (read then gives 0).
    auto until = std::chrono::steady_clock::now() + startup_deadline;
    std::string line;
    char c = 0;
    bool late = false;
    for (;;) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now());
      pollfd p{out.read, POLLIN, 0};
      if (left.count() <= 0 || ::poll(&p, 1, static_cast<int>(left.count())) == 0) {
        late = true;
        break;
      }
      if (read(out.read, &c, 1) != 1 || c == '\n')
        break;
      line.push_back(c);
    }
    close(out.read);
    if (late)
      throw std::runtime_error("the soma-node printed no port within " + std::to_string(startup_deadline.count())
                               + " s: " + args.back());
    if (line.empty()) {
      int status = 0;
      std::string how = waitpid(pid, &status, 0) == pid && WIFEXITED(status)
                          ? "it exited " + std::to_string(WEXITSTATUS(status))
                          : "it was killed by signal " + std::to_string(WTERMSIG(status));
      pid = -1;
      throw std::runtime_error("the soma-node printed no port (" + how + "): " + args.back());
    }
    port = static_cast<std::uint16_t>(std::stoi(line));
  }
};

/// A process with its stdout into the file `out` (created, or emptied).
struct logged_process : child_process {
  std::string out;

  logged_process(const std::vector<std::string>& args, std::string out_file)
    : child_process(args, open_out(out_file)), out(std::move(out_file)) {}

private:
  static int open_out(const std::string& file) {
    int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0)
      throw std::runtime_error("cannot write " + file);
    return fd;
  }
};

} // namespace soma_test
