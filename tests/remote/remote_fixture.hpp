#pragma once

// What the remote tests share: an actor system, workers started from the
// built soma-node, and the facts of one forward.

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
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

/// Waits until `done()` holds, checking every 50 ms, for at most 10 s;
/// whether it came.
template <class F>
bool eventually(F done) {
  auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!done()) {
    if (std::chrono::steady_clock::now() > until)
      return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return true;
}

/// The text of the file at `path` (empty when there is none).
inline std::string read_all(const std::filesystem::path& path) {
  std::ifstream in{path};
  std::stringstream all;
  all << in.rdbuf();
  return all.str();
}

/// The text of the file at `path`, once it holds `line` (eventually's
/// deadline); what it held then, if it never did.
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

} // namespace soma_test

namespace soma_test {

/// Every fact as one JSON line, for a failing check's message.
inline std::string said(const std::vector<soma::fact>& facts) {
  std::string out;
  for (auto& f : facts)
    out += "\n  " + soma::to_json(f);
  return out;
}

} // namespace soma_test

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <stdexcept>

namespace soma_test {

/// A soma-node started by hand (not connected to): its pid and the port it
/// printed. Killed with SIGTERM and reaped when it goes.
struct node_process {
  pid_t pid = -1;
  std::uint16_t port = 0;

  explicit node_process(const std::vector<std::string>& args) {
    int out[2];
    if (pipe(out) != 0 || (pid = fork()) < 0)
      throw std::runtime_error("cannot start a soma-node");
    if (pid == 0) {
      // A test process that dies (a crash, a fatal check) takes its workers
      // with it: none is left reporting, serving or holding a port.
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      dup2(out[1], STDOUT_FILENO);
      close(out[0]);
      close(out[1]);
      std::vector<char*> argv;
      for (auto& a : args)
        argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      execvp(argv[0], argv.data());
      _exit(127);
    }
    close(out[1]);
    std::string line;
    char c = 0;
    while (read(out[0], &c, 1) == 1 && c != '\n')
      line.push_back(c);
    close(out[0]);
    if (line.empty())
      throw std::runtime_error("the soma-node printed no port");
    port = static_cast<std::uint16_t>(std::stoi(line));
  }

  ~node_process() {
    if (pid > 0) {
      kill(pid, SIGTERM);
      waitpid(pid, nullptr, 0);
    }
  }

  node_process(const node_process&) = delete;
  node_process& operator=(const node_process&) = delete;
};

} // namespace soma_test
