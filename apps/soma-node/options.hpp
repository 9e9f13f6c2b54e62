#pragma once

/// @file
/// soma-node's command line: its options as plain values, read from argv
/// (CLI11), the checks they pass before anything is opened, and the exit
/// statuses (docs/remote.md).

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "soma/remote/address.hpp"

namespace soma::node_cli {

/// A clean stop.
inline constexpr int exit_ok = 0;
/// It cannot listen (the port, a certificate) or make its private directory.
inline constexpr int exit_cannot = 1;
/// Bad usage: an option that cannot be, a store or library that cannot be used.
inline constexpr int exit_usage = 2;
/// A stop cut short at its bound (--stop-within).
inline constexpr int exit_cut_short = 3;

/// What the command line asks for; `soma-node --help` says each.
struct options {
  std::string listen = "127.0.0.1:0"; ///< --listen HOST:PORT
  std::vector<std::string> nodes;     ///< --nodes LIBRARY, repeatable
  bool accept_code = false;           ///< --accept-code
  std::string tls_cert, tls_key, tls_ca; ///< --tls-cert, --tls-key, --tls-ca
  std::string store;                  ///< --store DIR or soma://HOST:PORT: where readings go
  std::optional<double> reporting;    ///< --reporting S
  std::string serve_store;            ///< --serve-store DIR
  std::size_t store_sessions = 10000; ///< --store-sessions N
  double stop_within = 1.5;           ///< --stop-within S
  double silence = 3.0;               ///< --connection-timeout S
  std::string claim;                  ///< --claim STUDY
  std::string trial;                  ///< --trial NAME
  double claim_wait = 0;              ///< --claim-wait S
  std::string metrics;                ///< --metrics HOST:PORT
};

/// Reads argv into `opt`. Returns the status to exit with when the command
/// line is all there is to do: 0 once --help or --version printed, 2 once
/// stderr said what was wrong with it; nullopt to go on.
[[nodiscard]] std::optional<int> parse_options(int argc, char** argv, options& opt);

/// Where the worker listens, as the options say once checked.
struct listening {
  soma::address where;      ///< --listen
  soma::address metrics_at; ///< --metrics, when given
  bool tls = false;         ///< mutual TLS: all three TLS files were given
};

/// Checks what can be checked before anything is opened: the addresses and
/// TLS (no listening beyond loopback without it), --reporting and --claim
/// and the options they need, and a served --store. Returns nullopt once
/// stderr said what is wrong (exit_usage).
[[nodiscard]] std::optional<listening> check_options(const options& opt);

/// Checks --stop-within and --connection-timeout. Returns false once stderr
/// said what is wrong (exit_usage).
[[nodiscard]] bool check_bounds(const options& opt);

/// Between two readings of itself (--reporting; 0.5 s when not given).
[[nodiscard]] std::chrono::microseconds reporting_every(const options& opt);

} // namespace soma::node_cli
