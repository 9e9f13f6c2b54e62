#pragma once

// A child process with its stdout on a pipe: started, read line by line with
// a deadline, and always reaped.

#include <chrono>
#include <csignal>
#include <optional>
#include <string>
#include <vector>

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

namespace soma_test {

class child {
public:
  explicit child(std::vector<std::string> argv) {
    int fds[2];
    if (::pipe(fds) != 0)
      throw std::runtime_error("pipe failed");
    pid_ = ::fork();
    if (pid_ < 0)
      throw std::runtime_error("fork failed");
    if (pid_ == 0) {
      ::dup2(fds[1], 1);
      ::close(fds[0]);
      ::close(fds[1]);
      std::vector<char*> args;
      for (auto& a : argv)
        args.push_back(a.data());
      args.push_back(nullptr);
      ::execv(args[0], args.data());
      ::_exit(127);
    }
    ::close(fds[1]);
    out_ = fds[0];
  }

  ~child() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      wait();
    }
    if (out_ >= 0)
      ::close(out_);
  }

  child(const child&) = delete;
  child& operator=(const child&) = delete;

  /// The next line of its stdout, or nullopt at the deadline or its end.
  std::optional<std::string> line(std::chrono::milliseconds deadline) {
    auto until = std::chrono::steady_clock::now() + deadline;
    for (;;) {
      if (auto nl = buffer_.find('\n'); nl != std::string::npos) {
        auto l = buffer_.substr(0, nl);
        buffer_.erase(0, nl + 1);
        return l;
      }
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        until - std::chrono::steady_clock::now());
      if (left.count() <= 0)
        return std::nullopt;
      pollfd p{out_, POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(left.count())) <= 0)
        continue;
      char buf[4096];
      auto n = ::read(out_, buf, sizeof buf);
      if (n <= 0)
        return std::nullopt;
      buffer_.append(buf, static_cast<size_t>(n));
    }
  }

  /// Reads lines until one starts with `prefix`; the rest of it, or nullopt
  /// at the deadline or its end.
  std::optional<std::string> until(const std::string& prefix, std::chrono::milliseconds deadline) {
    auto by = std::chrono::steady_clock::now() + deadline;
    for (;;) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        by - std::chrono::steady_clock::now());
      if (left.count() <= 0)
        return std::nullopt;
      auto l = line(left);
      if (!l)
        return std::nullopt;
      if (l->starts_with(prefix))
        return l->substr(prefix.size());
    }
  }

  void kill(int sig) { ::kill(pid_, sig); }

  /// Its process id (-1 once waited for).
  [[nodiscard]] int pid() const noexcept { return pid_; }

  /// Waits for it to end; its exit status as waitpid gives it.
  int wait() {
    int status = 0;
    if (pid_ > 0) {
      ::waitpid(pid_, &status, 0);
      pid_ = -1;
    }
    return status;
  }

private:
  pid_t pid_ = -1;
  int out_ = -1;
  std::string buffer_;
};

} // namespace soma_test
