#pragma once

/// @file
/// The client's end of one worker connection, shared by every handle and
/// forward that uses it.

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <caf/actor.hpp>
#include <caf/fwd.hpp>

#include "soma/remote/address.hpp"
#include "soma/remote/protocol.hpp"
#include "soma/remote/worker.hpp"
#include "soma/served/protocol.hpp"

namespace soma::detail {

class caller_trips;

class worker_link : public std::enable_shared_from_this<worker_link> {
public:
  /// A link to the worker at `where`: one this process spawned as `child`
  /// (with its `lifeline`, which the link closes when it goes), or, with
  /// `child` 0, one it connects to.
  worker_link(caf::actor_system& sys, soma::address where, soma::mode how,
              std::optional<soma::tls> tls, std::chrono::milliseconds within, pid_t child,
              int lifeline = -1);
  ~worker_link();

  worker_link(const worker_link&) = delete;
  worker_link& operator=(const worker_link&) = delete;

  /// Connects and opens a session; throws worker_error saying why not.
  void open();

  /// Opens sessions as a served store's client instead (served/protocol.hpp):
  /// read-only ones, in which the server refuses every write, when `read_only`.
  void serve_store(bool read_only) noexcept {
    wire_mode_ = read_only ? served::store_read_mode : served::store_mode;
  }

  /// The session actor, or nothing with `why` set when the link is lost.
  caf::actor session(std::string& why);

  /// Whether it has a session now.
  [[nodiscard]] bool connected();

  /// Reconnects a lost link that can be reconnected (blocking, bounded);
  /// says nothing when it cannot: session() then says why.
  void ensure();

  /// Called when `session` went away; a newer session is left alone.
  void lost(const caf::actor_addr& session, std::string why);

  /// Notes that the session answered something just now.
  void heard() noexcept {
    heard_.store(std::chrono::steady_clock::now().time_since_epoch().count(),
                 std::memory_order_relaxed);
  }

  /// What is known of why the session was lost: a spawned child that ended
  /// or is stopped, a silence (since its last answer) past the connection
  /// timeout, or a closed connection. Never blocks (called from the slice
  /// actor).
  [[nodiscard]] std::string loss();

  [[nodiscard]] const soma::address& where() const noexcept { return where_; }
  [[nodiscard]] soma::mode how() const noexcept { return how_; }
  [[nodiscard]] pid_t child() const noexcept { return child_; }
  [[nodiscard]] caf::actor_system& system() const noexcept { return sys_; }

  /// Where blocked callers send their trips from (caller_trips.hpp); made
  /// at the first such trip.
  caller_trips& callers();

private:
  // Whether the spawned child has exited; says how in `why`.
  bool child_exited(std::string& why);

  caf::actor_system& sys_;
  soma::address where_;
  soma::mode how_;
  std::optional<soma::tls> tls_;
  std::chrono::milliseconds within_;
  pid_t child_;
  int lifeline_;
  std::optional<int> child_status_;
  std::mutex lock_;
  std::mutex connecting_; ///< one reconnect at a time
  caf::actor session_;
  caf::actor guard_;
  std::string lost_why_ = "it is not connected";
  std::string wire_mode_;
  std::atomic<std::chrono::steady_clock::rep> heard_{0}; ///< the last answer
  std::unique_ptr<caller_trips> callers_;                  ///< under lock_
};

/// What a worker's error says: soma's words for a soma error (a worker
/// sends its store refusals so, their kind as the code), else the text it
/// carried, else CAF's rendering of it.
std::string worker_said(caf::actor_system& sys, const caf::error& e);

} // namespace soma::detail
