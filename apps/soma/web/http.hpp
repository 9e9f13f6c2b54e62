#pragma once

/// @file
/// soma::web::http_server: an HTTP server of soma's own programs (`soma
/// serve`, `soma-node --metrics`), cpp-httplib underneath, with soma's rules:
/// - loopback by default; beyond loopback only with TLS (a certificate and
///   its key), as soma-node demands;
/// - port 0 takes a free port, and url() says which;
/// - bounded: a fixed pool of threads, at most `queued` connections waiting
///   for one, request lines and headers of at most 8 KiB, no request body
///   over 64 KiB, a read or write that stalls 5 s ends the connection, an
///   idle keep-alive connection is closed after 2 s;
/// - live streams (server-sent events) hold a thread each, so at most
///   `live_cap` of them at once: live_slot() says when one more would be
///   one too many;
/// - stop() ends it within a stated bound, live streams included.
///
/// The routes are httplib's; only web/ sees httplib.

#include <atomic>
#include <cstddef>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>

namespace httplib {
class Server;
struct Request;
struct Response;
} // namespace httplib

namespace soma::web {

/// What a server listens on and how much it takes.
struct http_options {
  std::string listen = "127.0.0.1:8080"; ///< HOST:PORT; port 0 takes a free port
  std::string tls_cert;                  ///< PEM; with tls_key, HTTPS
  std::string tls_key;                   ///< PEM
  std::size_t threads = 24;              ///< requests served at once, live streams included
  std::size_t live_cap = 16;             ///< live streams at once (fewer than threads)
  std::size_t queued = 256;              ///< connections waiting for a thread, at most
  std::string who = "soma serve";        ///< names the server in errors ("anyone who can reach soma serve")
};

/// The server cannot start: what was wrong and what to do (no program name
/// in front: the program that prints it adds its own).
class http_error : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// A live stream's place: held while the stream lasts; empty when the cap
/// is reached (then refuse with 503).
class live_slot {
public:
  live_slot() = default;
  explicit live_slot(std::atomic<std::size_t>* count) : count_(count) {}
  live_slot(live_slot&& x) noexcept : count_(std::exchange(x.count_, nullptr)) {}
  live_slot& operator=(live_slot&& x) noexcept {
    std::swap(count_, x.count_);
    return *this;
  }
  ~live_slot() {
    if (count_)
      count_->fetch_sub(1);
  }
  explicit operator bool() const noexcept { return count_ != nullptr; }

private:
  std::atomic<std::size_t>* count_ = nullptr;
};

class http_server {
public:
  /// Checks `options` and binds. Throws http_error: an address that is not
  /// HOST:PORT, beyond loopback without TLS, TLS files that are not there or
  /// do not load, a port that cannot be bound.
  explicit http_server(const http_options& options);
  ~http_server();

  http_server(const http_server&) = delete;
  http_server& operator=(const http_server&) = delete;

  /// Where to add routes, before run().
  [[nodiscard]] httplib::Server& routes() noexcept { return *server_; }

  /// `http://HOST:PORT/` (https with TLS), the port the one bound.
  [[nodiscard]] const std::string& url() const noexcept { return url_; }

  /// The port bound.
  [[nodiscard]] int port() const noexcept { return port_; }

  /// Serves until stop(). Returns false when it could not serve at all.
  bool run();

  /// Ends run(): no new connection is taken, live streams see stopping()
  /// and end within their poll (at most a second). Safe from any thread.
  void stop();

  /// Whether stop() was called: what a live stream polls.
  [[nodiscard]] bool stopping() const noexcept { return stopping_.load(); }

  /// A live stream's slot, or an empty one when `live_cap` are open (or the
  /// request runs outside the pool, when every thread is taken).
  [[nodiscard]] live_slot live_slot_for_stream();

  /// The most live streams at once.
  [[nodiscard]] std::size_t live_cap() const noexcept { return live_cap_; }

  /// Live streams open now.
  [[nodiscard]] std::size_t live_open() const noexcept { return live_.load(); }

private:
  std::unique_ptr<httplib::Server> server_;
  std::string url_;
  int port_ = 0;
  std::size_t live_cap_ = 0;
  std::atomic<std::size_t> live_{0};
  std::atomic<bool> stopping_{false};
  std::atomic<bool> running_{false};
};

/// Answers `code` with a one-line plain-text `message` (what was wrong and
/// what to do), as every error of soma's servers is answered.
void refuse(httplib::Response& res, int code, const std::string& message);

} // namespace soma::web
