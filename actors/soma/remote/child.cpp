#include "soma/remote/child.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <exception>
#include <string_view>

#include "soma/remote/address.hpp"
#include "soma/remote/worker.hpp"

extern char** environ;

namespace soma::detail {

std::string exit_text(int status) {
  if (WIFSIGNALED(status))
    return "was killed by signal " + std::to_string(WTERMSIG(status));
  return "exited with status " + std::to_string(WEXITSTATUS(status));
}


// State T in /proc/PID/stat.
bool stopped(pid_t pid) {
  auto path = "/proc/" + std::to_string(pid) + "/stat";
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return false;
  char buf[512];
  auto n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0)
    return false;
  buf[n] = '\0';
  // "pid (comm) S ...": the state follows the last ')'.
  auto* paren = std::strrchr(buf, ')');
  return paren && paren[1] == ' ' && (paren[2] == 'T' || paren[2] == 't');
}


namespace {

// This process's environment, with the child's lifeline said to be its
// stdin (and any lifeline this process was given left out).
std::vector<std::string> child_environment() {
  const std::string_view name{lifeline_variable};
  std::vector<std::string> out;
  for (char** e = environ; e && *e; ++e) { // clearenv() leaves none
    std::string_view entry{*e};
    if (!(entry.starts_with(name) && entry.size() > name.size() && entry[name.size()] == '='))
      out.emplace_back(entry);
  }
  out.emplace_back(name);
  out.back().append("=0");
  return out;
}

} // namespace

started_child start_child(const std::vector<std::string>& command) {
  if (command.empty())
    throw worker_error("worker::spawn needs a command, e.g. {\"soma-node\"}");
  int out[2], in[2];
  if (pipe2(out, O_CLOEXEC) != 0)
    throw worker_error(std::string{"cannot make a pipe for the worker: "} + std::strerror(errno));
  if (pipe2(in, O_CLOEXEC) != 0) {
    auto why = std::string{"cannot make a pipe for the worker: "} + std::strerror(errno);
    close(out[0]);
    close(out[1]);
    throw worker_error(why);
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, in[0], STDIN_FILENO);
  std::vector<char*> argv;
  for (auto& a : command)
    argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  auto environment = child_environment();
  std::vector<char*> envp;
  for (auto& e : environment)
    envp.push_back(e.data());
  envp.push_back(nullptr);
  pid_t pid = 0;
  int rc = posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  close(out[1]);
  close(in[0]);
  if (rc != 0) {
    close(out[0]);
    close(in[1]);
    throw worker_error("cannot start '" + command[0] + "': " + std::strerror(rc));
  }
  return {pid, out[0], in[1]};
}

std::uint16_t first_line_port(pid_t pid, int fd, const std::string& program,
                              std::chrono::milliseconds within) {
  auto deadline = std::chrono::steady_clock::now() + within;
  std::string line;
  char c = 0;
  while (true) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      deadline - std::chrono::steady_clock::now());
    pollfd p{fd, POLLIN, 0};
    if (left.count() <= 0 || poll(&p, 1, static_cast<int>(left.count())) == 0) {
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
      throw worker_error("'" + program + "' printed no port within "
                         + std::to_string(within.count()) + " ms; it was stopped");
    }
    auto n = read(fd, &c, 1);
    if (n <= 0) {
      int status = 0;
      waitpid(pid, &status, 0);
      throw worker_error("'" + program + "' " + exit_text(status)
                         + " before it printed its port; its stderr says why");
    }
    if (c == '\n')
      break;
    line.push_back(c);
  }
  try {
    auto a = parse_address("127.0.0.1:" + line, "the worker's first line");
    return a.port;
  } catch (const std::exception&) {
    kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
    throw worker_error("'" + program + "' printed '" + line
                       + "' where a worker prints its port; is it soma-node?");
  }
}

} // namespace soma::detail
