// Reads TCP_INFO from <linux/tcp.h> (the glibc struct stops before the
// byte counters), so this file includes no <netinet/tcp.h>.
#include "tcp_counters.hpp"

#include <linux/tcp.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <cstddef>
#include <filesystem>
#include <string>

namespace {

constexpr std::uint8_t established = 1; // TCP_ESTABLISHED, of <netinet/tcp.h>

} // namespace

tcp_counters tcp_counters::now() {
  tcp_counters total;
  std::error_code ec;
  for (auto& entry : std::filesystem::directory_iterator("/proc/self/fd", ec)) {
    int fd = 0;
    try {
      fd = std::stoi(entry.path().filename().string());
    } catch (const std::exception&) {
      continue;
    }
    struct stat st {};
    if (fstat(fd, &st) != 0 || !S_ISSOCK(st.st_mode))
      continue;
    int protocol = 0;
    socklen_t len = sizeof protocol;
    if (getsockopt(fd, SOL_SOCKET, SO_PROTOCOL, &protocol, &len) != 0 || protocol != IPPROTO_TCP)
      continue;
    tcp_info info{};
    len = sizeof info;
    if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &len) != 0 || info.tcpi_state != established
        || len < offsetof(tcp_info, tcpi_bytes_received) + sizeof info.tcpi_bytes_received)
      continue;
    int on = 0;
    len = sizeof on;
    getsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, &len);
    total.sent += info.tcpi_bytes_acked;
    total.received += info.tcpi_bytes_received;
    ++total.connections;
    total.nodelay += on != 0;
  }
  return total;
}
