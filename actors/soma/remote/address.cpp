#include "soma/remote/address.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <charconv>
#include <stdexcept>

namespace soma {

std::string address::str() const {
  auto h = host.find(':') != std::string::npos ? "[" + host + "]" : host;
  return h + ":" + std::to_string(port);
}

address parse_address(std::string_view text, std::string_view what) {
  auto bad = [&](const char* why) {
    return std::invalid_argument(std::string{what} + ": '" + std::string{text}
                                 + "' is not HOST:PORT (" + why + "), e.g. 127.0.0.1:7000");
  };
  auto colon = text.rfind(':');
  if (colon == std::string_view::npos)
    throw bad("no port");
  auto host = text.substr(0, colon);
  auto port = text.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  if (host.empty())
    throw bad("no host");
  unsigned value = 0;
  auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
  if (port.empty() || ec != std::errc{} || end != port.data() + port.size() || value > 65535)
    throw bad("the port is a number from 0 to 65535");
  return {std::string{host}, static_cast<std::uint16_t>(value)};
}

bool is_loopback(std::string_view host) {
  if (host == "localhost")
    return true;
  std::string h{host};
  in_addr v4{};
  if (inet_pton(AF_INET, h.c_str(), &v4) == 1)
    return (ntohl(v4.s_addr) >> 24) == 127;
  in6_addr v6{};
  return inet_pton(AF_INET6, h.c_str(), &v6) == 1 && IN6_IS_ADDR_LOOPBACK(&v6);
}

} // namespace soma
