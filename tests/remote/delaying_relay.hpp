#pragma once

// A TCP relay on loopback that holds every chunk it reads, either way, for a
// fixed delay before passing it on: a slow wire where this kernel has no
// netem. One thread; it stops (and closes every socket) within 100 ms of
// being destroyed. Its sockets block: a receiver that stops reading stalls
// it, which a test's small messages never do.

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace soma_test {

class delaying_relay {
public:
  using clock = std::chrono::steady_clock;

  /// Listens on 127.0.0.1 (port()) and relays each connection to
  /// 127.0.0.1:`target`, every chunk `delay` late.
  delaying_relay(std::uint16_t target, std::chrono::milliseconds delay)
    : target_(target), delay_(delay) {
    listen_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t n = sizeof a;
    if (listen_ < 0 || ::bind(listen_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0
        || ::listen(listen_, 8) != 0 || ::getsockname(listen_, reinterpret_cast<sockaddr*>(&a), &n) != 0)
      throw std::runtime_error("the relay cannot listen on loopback");
    port_ = ntohs(a.sin_port);
    thread_ = std::thread([this] { loop(); });
  }

  ~delaying_relay() {
    stop_ = true;
    thread_.join();
    for (auto& w : ways_)
      ::close(w.from);
    ::close(listen_);
  }

  delaying_relay(const delaying_relay&) = delete;
  delaying_relay& operator=(const delaying_relay&) = delete;

  [[nodiscard]] std::uint16_t port() const noexcept { return port_; }

private:
  struct chunk {
    clock::time_point due;
    std::string bytes;
  };
  // One direction of one connection: read from `from`, written to `to`.
  struct way {
    int from, to;
    std::deque<chunk> held;
    bool open = true, shut = false;
  };

  static int connect_to(std::uint16_t port) {
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons(port);
    if (fd < 0 || ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
      if (fd >= 0)
        ::close(fd);
      return -1;
    }
    return fd;
  }

  static void no_delay(int fd) {
    int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  }

  void accept_one() {
    int in = ::accept4(listen_, nullptr, nullptr, SOCK_CLOEXEC);
    if (in < 0)
      return;
    int out = connect_to(target_);
    if (out < 0) {
      ::close(in);
      return;
    }
    no_delay(in);
    no_delay(out);
    ways_.push_back({in, out});
    ways_.push_back({out, in});
  }

  // Writes what is due; how long until the next chunk is (at most 100 ms).
  int flush_due() {
    auto now = clock::now();
    auto next = now + std::chrono::milliseconds(100);
    for (auto& w : ways_) {
      while (!w.held.empty() && w.held.front().due <= now) {
        auto& b = w.held.front().bytes;
        std::size_t done = 0;
        while (done < b.size()) {
          auto k = ::send(w.to, b.data() + done, b.size() - done, MSG_NOSIGNAL);
          if (k < 0 && errno == EINTR)
            continue;
          if (k <= 0)
            break; // the other side is gone: what is left goes nowhere
          done += static_cast<std::size_t>(k);
        }
        w.held.pop_front();
      }
      if (!w.held.empty())
        next = std::min(next, w.held.front().due);
      else if (!w.open && !w.shut) // all it held has gone: the other side sees its end now
        w.shut = ::shutdown(w.to, SHUT_WR) == 0 || true;
    }
    // Rounded up: poll wakes when the next chunk is due, not just before.
    auto ms = std::chrono::ceil<std::chrono::milliseconds>(next - clock::now()).count();
    return static_cast<int>(std::clamp<long long>(ms, 0, 100));
  }

  void loop() {
    while (!stop_) {
      auto wait = flush_due();
      std::vector<pollfd> fds{{listen_, POLLIN, 0}};
      for (auto& w : ways_)
        fds.push_back({w.open ? w.from : -1, POLLIN, 0});
      if (::poll(fds.data(), fds.size(), wait) <= 0)
        continue;
      if (fds[0].revents & POLLIN)
        accept_one();
      for (std::size_t i = 1; i < fds.size(); ++i) {
        if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
          continue;
        auto& w = ways_[i - 1];
        char buf[65536];
        auto k = ::recv(w.from, buf, sizeof buf, 0);
        if (k <= 0) {
          w.open = false; // what it held still goes first
          continue;
        }
        w.held.push_back({clock::now() + delay_, std::string(buf, static_cast<std::size_t>(k))});
      }
    }
  }

  std::uint16_t target_;
  std::chrono::milliseconds delay_;
  int listen_ = -1;
  std::uint16_t port_ = 0;
  std::vector<way> ways_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

} // namespace soma_test
