#pragma once

/// @file
/// soma::address: "host:port" as a worker listens on and a client reaches it.

#include <cstdint>
#include <string>
#include <string_view>

#include "soma/export.hpp"

SOMA_API_BEGIN

namespace soma {

/// A host and a TCP port.
struct address {
  std::string host;
  std::uint16_t port = 0;

  /// "host:port" ("[::1]:port" for an IPv6 host).
  [[nodiscard]] std::string str() const;
};

/// Parses "host:port" or "[v6]:port". Throws std::invalid_argument that
/// names `what` (e.g. "--listen") and the text when it is not one.
address parse_address(std::string_view text, std::string_view what);

/// Whether `host` is this machine's loopback (127.0.0.0/8, ::1, localhost).
bool is_loopback(std::string_view host);

} // namespace soma

SOMA_API_END
