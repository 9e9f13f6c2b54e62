#pragma once

// A port for a server that a test starts later, or starts again, while
// clients already try to reach it.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fstream>
#include <random>
#include <stdexcept>

namespace soma_test {

/// A loopback port free now, below the kernel's range of ephemeral ports
/// (/proc/sys/net/ipv4/ip_local_port_range), so that no client's connect
/// is ever given it as its own end. A client that connects to 127.0.0.1:P
/// while nothing listens there, from its own port P, connects to itself
/// (TCP's simultaneous open), and that connection, then its TIME-WAIT, keep
/// the server from binding P for a minute. A hundred workers retrying
/// against a port of the ephemeral range met it about one run in fifteen.
inline int server_port() {
  int low = 32768, high = 60999;
  std::ifstream{"/proc/sys/net/ipv4/ip_local_port_range"} >> low >> high;
  constexpr int floor = 10000;
  if (low - floor < 1000)
    throw std::runtime_error("server_port: the ephemeral ports begin at " + std::to_string(low)
                             + ", which leaves no room below them for a server's port");
  std::mt19937 pick{std::random_device{}()};
  std::uniform_int_distribution<int> any{floor, low - 1};
  for (int tries = 0; tries < 200; ++tries) {
    int port = any(pick);
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
      break;
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons(static_cast<std::uint16_t>(port));
    bool free = ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
    ::close(fd); // bound, never listening: closing it leaves no TIME-WAIT
    if (free)
      return port;
  }
  throw std::runtime_error("server_port: no free loopback port below the ephemeral range");
}

} // namespace soma_test
