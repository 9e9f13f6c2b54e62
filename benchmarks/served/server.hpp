#pragma once

// A soma-node serving a store, for the served-store benchmarks: started
// with posix_spawn, its port the first line it prints (within 30 s), and
// stopped with SIGTERM when it goes.

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <iterator>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

extern char** environ;

namespace soma_bench {

/// A directory of its own under /tmp (`/tmp/NAME-XXXXXX`), removed with
/// everything in it when it goes.
struct scratch_dir {
  std::string path;
  explicit scratch_dir(const std::string& name) {
    std::string tmpl = "/tmp/" + name + "-XXXXXX";
    if (!::mkdtemp(tmpl.data()))
      throw std::runtime_error("cannot make a directory under /tmp");
    path = tmpl;
  }
  scratch_dir(const scratch_dir&) = delete;
  scratch_dir& operator=(const scratch_dir&) = delete;
  ~scratch_dir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
};

/// Starts `args` (args[0] is the program) with its stdout into the file
/// `out` (/dev/null when empty) and its stderr into `err` (this process's
/// when empty); its pid, or -1.
inline pid_t spawn(std::vector<std::string> args, const std::string& out = "",
                   const std::string& err = "") {
  std::vector<char*> argv;
  for (auto& a : args)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t io;
  posix_spawn_file_actions_init(&io);
  posix_spawn_file_actions_addopen(&io, 1, out.empty() ? "/dev/null" : out.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (!err.empty())
    posix_spawn_file_actions_addopen(&io, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = -1;
  if (posix_spawn(&pid, argv[0], &io, nullptr, argv.data(), environ) != 0)
    pid = -1;
  posix_spawn_file_actions_destroy(&io);
  return pid;
}

struct served_node {
  pid_t pid = -1;
  std::string address; // soma://127.0.0.1:PORT

  // soma-node --serve-store `dir`, and `more` arguments.
  explicit served_node(const std::string& dir, std::vector<std::string> more = {}) {
    int from[2];
    if (pipe2(from, O_CLOEXEC) != 0)
      throw std::runtime_error("pipe");
    posix_spawn_file_actions_t io;
    posix_spawn_file_actions_init(&io);
    posix_spawn_file_actions_adddup2(&io, from[1], 1);
    posix_spawn_file_actions_addopen(&io, 2, "/dev/null", O_WRONLY, 0);
    std::vector<std::string> args{SOMA_NODE_PROGRAM, "--serve-store", dir};
    args.insert(args.end(), more.begin(), more.end());
    std::vector<char*> argv;
    for (auto& a : args)
      argv.push_back(a.data());
    argv.push_back(nullptr);
    if (posix_spawn(&pid, argv[0], &io, nullptr, argv.data(), environ) != 0)
      throw std::runtime_error("cannot start soma-node");
    posix_spawn_file_actions_destroy(&io);
    ::close(from[1]);
    std::string line;
    char c;
    auto until = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    for (;;) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now());
      pollfd p{from[0], POLLIN, 0};
      if (left.count() <= 0 || ::poll(&p, 1, static_cast<int>(left.count())) <= 0)
        break;
      if (::read(from[0], &c, 1) != 1 || c == '\n')
        break;
      line += c;
    }
    ::close(from[0]);
    if (line.empty()) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, nullptr, 0);
      pid = -1;
      throw std::runtime_error("soma-node --serve-store " + dir + " said no port within 30 s");
    }
    address = "soma://127.0.0.1:" + line;
  }

  served_node(const served_node&) = delete;
  served_node& operator=(const served_node&) = delete;

  ~served_node() {
    if (pid > 0) {
      ::kill(pid, SIGTERM);
      ::waitpid(pid, nullptr, 0);
    }
  }

  [[nodiscard]] std::uint16_t port() const {
    return static_cast<std::uint16_t>(std::stoul(address.substr(address.rfind(':') + 1)));
  }
};

// The server's process as /proc says it: CPU seconds so far, threads, RSS.
struct proc_sample {
  double cpu_s = 0;
  int threads = 0;
  double rss_mb = 0;
  double anon_mb = 0; ///< of rss_mb, the process's own memory (RssAnon)
  double file_mb = 0; ///< of rss_mb, pages of mapped files (RssFile: the store's map, in the page cache)
};

inline proc_sample sample(pid_t pid) {
  proc_sample out;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  auto close = text.rfind(')');
  if (close != std::string::npos) {
    std::istringstream rest(text.substr(close + 2));
    std::vector<std::string> f{std::istream_iterator<std::string>(rest), {}};
    // After the name: state is field 3, utime 14 and stime 15 (1-based).
    if (f.size() > 13)
      out.cpu_s = (std::stod(f[11]) + std::stod(f[12])) / static_cast<double>(::sysconf(_SC_CLK_TCK));
  }
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(status, line);) {
    if (line.starts_with("Threads:"))
      out.threads = std::stoi(line.substr(8));
    else if (line.starts_with("VmRSS:"))
      out.rss_mb = std::stod(line.substr(6)) / 1024.0;
    else if (line.starts_with("RssAnon:"))
      out.anon_mb = std::stod(line.substr(8)) / 1024.0;
    else if (line.starts_with("RssFile:"))
      out.file_mb = std::stod(line.substr(8)) / 1024.0;
  }
  return out;
}

} // namespace soma_bench
