#pragma once

// What tests wait for that no process announces: a state of a store (how
// many trials are done, how quiet a killed claimant has become, what the
// health rules think of a stopped worker). Waits for lines a process prints
// use child::until.

#include <poll.h>
#include <sys/inotify.h>
#include <unistd.h>

#include <chrono>
#include <stdexcept>
#include <string>

namespace soma_test {

/// Reads the store in directory `dir` through `pred` until it holds or
/// `deadline` passes; whether it held. It reads again whenever a writer
/// writes to the store's file (inotify on its data.mdb: LMDB writes it with
/// pwrite, not through a map), never on a timer: what it waits for can only
/// change with a write.
template <class P>
bool store_shows(const std::string& dir, P pred, std::chrono::milliseconds deadline) {
  auto by = std::chrono::steady_clock::now() + deadline;
  int fd = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (fd < 0 || ::inotify_add_watch(fd, (dir + "/data.mdb").c_str(), IN_MODIFY) < 0) {
    if (fd >= 0)
      ::close(fd);
    throw std::runtime_error("store_shows: cannot watch " + dir + "/data.mdb");
  }
  struct closing {
    int fd;
    ~closing() { ::close(fd); }
  } closed{fd};
  while (!pred()) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      by - std::chrono::steady_clock::now());
    if (left.count() <= 0)
      return false;
    pollfd written{fd, POLLIN, 0};
    if (::poll(&written, 1, static_cast<int>(left.count())) > 0) {
      char events[4096];
      while (::read(fd, events, sizeof events) > 0) {
      } // drained: one read of the store answers them all
    }
  }
  return true;
}

} // namespace soma_test
