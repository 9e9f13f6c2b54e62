#pragma once

/// @file
/// soma::worker: a soma-node process a graph's remote nodes run on, seen
/// from the client (docs/remote.md).

#include <sys/types.h>

#include <chrono>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <caf/error.hpp>
#include <caf/fwd.hpp>

#include "soma/export.hpp"

SOMA_API_BEGIN

namespace soma {

/// How nodes travel to a worker.
enum class mode {
  /// As names the worker already has: a node library given to it with
  /// `--nodes`. The worker checks that its library is the client's, byte for byte.
  project,
  /// The client ships the node library that defines them; the worker loads
  /// it only when started with `--accept-code`.
  network,
};

/// The files of mutual TLS: this side's certificate and key, and the CA the
/// other side's certificate must be signed by (PEM).
struct tls {
  std::string cert;
  std::string key;
  std::string ca;
};

/// A worker could not be started, reached, or opened a session with.
class worker_error : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;

  /// With what the worker or the network said, as data: a soma error whose
  /// code says the kind (busy, refused), or CAF's (a timeout, a lost
  /// connection). soma::trouble_of (soma/store/store.hpp) reads its kind.
  worker_error(const std::string& what, caf::error cause)
    : std::runtime_error(what), cause_(std::move(cause)) {}

  /// What the worker or the network said; none when only words were made.
  [[nodiscard]] const caf::error& cause() const noexcept { return cause_; }

private:
  caf::error cause_;
};

namespace detail {
SOMA_API_HIDDEN_BEGIN
class worker_link;
SOMA_API_HIDDEN_END
} // namespace detail

/// One connection to a soma-node worker: one session, one catalog.
///
/// A handle: copies share the connection, which closes (and a spawned
/// worker stops) when the last copy is destroyed. When the connection is
/// lost, the next forward that needs it reconnects a worker reached with
/// connect(); a spawned worker that died stays dead, and a broker can be
/// given a new one with broker::put.
class worker {
public:
  /// Starts `command` (e.g. `{"soma-node", "--nodes", "libmine.so"}`; a
  /// name without a slash is looked up in PATH) as a child process, reads
  /// the port it prints, and connects to it on loopback. Throws
  /// worker_error when it does not start, print a port, or accept the
  /// session within `within`.
  /// A command with `--listen HOST:PORT` is reached at that host; with
  /// `tls`, over mutual TLS (see connect()).
  static worker spawn(caf::actor_system& sys, std::vector<std::string> command,
                      soma::mode how = soma::mode::project, std::optional<soma::tls> tls = {},
                      std::chrono::milliseconds within = std::chrono::seconds(10));

  /// Connects to a worker already listening at "host:port". With `tls`, the
  /// connection is mutual TLS; `sys` must then have been made from a
  /// soma::system_config given the same files (system_config::use_tls).
  /// Throws worker_error when the address is unreachable within `within`,
  /// TLS fails, or the worker refuses the session.
  static worker connect(caf::actor_system& sys, std::string_view address,
                        soma::mode how = soma::mode::project, std::optional<soma::tls> tls = {},
                        std::chrono::milliseconds within = std::chrono::seconds(5));

  /// "host:port" of the worker.
  [[nodiscard]] std::string address() const;

  /// The worker's process id when this process spawned it, else 0.
  [[nodiscard]] pid_t pid() const noexcept;

  /// How nodes travel to it.
  [[nodiscard]] soma::mode how() const noexcept;

  /// The shared connection (used by soma::broker).
  [[nodiscard]] const std::shared_ptr<detail::worker_link>& link() const noexcept { return link_; }

private:
  explicit worker(std::shared_ptr<detail::worker_link> link) : link_(std::move(link)) {}
  std::shared_ptr<detail::worker_link> link_;
};

} // namespace soma

SOMA_API_END
