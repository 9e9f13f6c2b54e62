#include "stop_signals.hpp"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <stdexcept>
#include <string>

#include <fcntl.h>
#include <unistd.h>


namespace soma::cli {

namespace {

volatile std::sig_atomic_t caught = 0;
int pipe_fds[2] = {-1, -1};

// A handler may only set a flag and write a byte; the byte wakes a poll.
// The pipe is non-blocking and never drained, so a storm of signals cannot
// block the handler once it is full.
extern "C" void on_stop_signal(int sig) {
  auto saved = errno;
  if (caught == 0)
    caught = sig;
  unsigned char byte = static_cast<unsigned char>(sig);
  (void)!::write(pipe_fds[1], &byte, 1);
  errno = saved;
}

} // namespace

void catch_stop_signals() {
  if (pipe_fds[0] >= 0)
    return;
  if (::pipe2(pipe_fds, O_CLOEXEC | O_NONBLOCK) != 0)
    throw std::runtime_error(std::string{"cannot make a pipe for the stop signals: "} + std::strerror(errno));
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  ::sigemptyset(&sa.sa_mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP})
    ::sigaction(sig, &sa, nullptr);
}

int stop_signal() noexcept {
  return caught;
}

int stop_fd() noexcept {
  return pipe_fds[0];
}

} // namespace soma::cli
