#pragma once

// What this process's TCP connections have carried, read from the kernel
// (TCP_INFO): how many bytes a trip puts on the wire, counted the same way
// for soma's trip and for plain CAF's, whatever each frames them with.

#include <cstdint>

/// Totals over the established TCP connections this process has open now.
struct tcp_counters {
  std::uint64_t sent = 0;     ///< bytes the peers have acknowledged (tcpi_bytes_acked)
  std::uint64_t received = 0; ///< bytes received (tcpi_bytes_received)
  int connections = 0;
  int nodelay = 0;            ///< of them, how many have TCP_NODELAY on

  /// Reads them now. Sockets opened or closed between two reads spoil the
  /// difference: read around trips on connections that are already up.
  static tcp_counters now();
};
