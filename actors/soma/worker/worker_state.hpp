#pragma once

/// @file
/// soma::serve::worker_state: everything a worker process shares between its
/// sessions (the node libraries it serves, those clients shipped to it, the
/// store it serves, its counters), and loading a node library for it. What a
/// worker of one's own makes, then hands to soma::serve::spawn_front
/// (soma/worker/server.hpp).

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "soma/export.hpp"
#include "soma/machine.hpp"
#include "soma/store/store.hpp"
#include "soma/worker/counters.hpp"

SOMA_API_BEGIN

namespace soma::detail {
struct node_library; // a loaded node library: soma::serve::load_node_library gives one
} // namespace soma::detail

namespace soma::serve {

/// Loads the node library at `path` (dlopen, local symbols) and hashes it,
/// for a worker to serve. Throws std::runtime_error naming the file when it
/// cannot be loaded or has neither SOMA_NODE_LIBRARY nor
/// SOMA_TRIAL_FUNCTIONS of its own.
[[nodiscard]] std::shared_ptr<const detail::node_library> load_node_library(const std::string& path);

/// Everything a worker process shares between its sessions. Thread-safe.
class worker_state {
public:
  /// `libraries`: the node libraries given with --nodes, loaded.
  /// `accept_code`: whether sessions may open in network mode.
  /// `code_dir`: where shipped libraries are written before loading.
  worker_state(std::vector<std::shared_ptr<const detail::node_library>> libraries,
               bool accept_code, std::string code_dir);

  /// The store this worker serves to soma:// clients (--serve-store), if any.
  std::optional<store> served_store;

  /// What it has done: the methods below count into it, and so do its
  /// sessions and reporter; `soma-node --metrics` reads it.
  counters counts;

  [[nodiscard]] bool accept_code() const noexcept { return accept_code_; }

  [[nodiscard]] const std::vector<std::shared_ptr<const detail::node_library>>& libraries() const noexcept {
    return libraries_;
  }

  /// A library shipped earlier with this definition, or nullptr.
  std::shared_ptr<const detail::node_library> shipped(const std::string& definition) const;

  /// Checks `bytes` against `definition`, writes and loads them. Throws
  /// std::runtime_error saying why not (no --accept-code, hash mismatch,
  /// not a node library).
  std::shared_ptr<const detail::node_library> ship(const std::string& definition,
                                                   const std::string& bytes);

  /// Counts one slice served, for the readings (counts.slices_served counts
  /// it once answered); returns the new count, this slice included.
  std::uint64_t served_one() noexcept { return served_.fetch_add(1) + 1; }

  [[nodiscard]] std::uint64_t served() const noexcept { return served_.load(); }

  /// Takes back one served_one(): the slice was not served after all.
  void served_back() noexcept { served_.fetch_sub(1); }

  machine_sampler& sampler() noexcept { return sampler_; }

  /// The next session's number.
  std::uint64_t next_session() noexcept { return counts.sessions_opened.fetch_add(1) + 1; }

  /// At most this many sessions of slices are open at once: each holds a
  /// thread. A served store's sessions do not (store_sessions).
  static constexpr int max_open_sessions = 256;

  /// At most this many sessions of the served store are open at once
  /// (soma-node --store-sessions): each is a scheduled actor and a socket.
  std::size_t store_sessions = 10000;

  /// Counts a session of slices opened; false (and nothing counted) when at
  /// the limit.
  bool session_opened() noexcept {
    auto n = slice_sessions_.load();
    while (n < max_open_sessions)
      if (slice_sessions_.compare_exchange_weak(n, n + 1)) {
        ++counts.sessions_open;
        return true;
      }
    return false;
  }

  /// Counts a session of slices closed.
  void session_closed() noexcept {
    --slice_sessions_;
    --counts.sessions_open;
  }

  /// Counts a session of the served store opened, and closed (its limit is
  /// its service's, soma/served/session.hpp).
  void store_session_opened() noexcept { ++counts.sessions_open; }
  void store_session_closed() noexcept { --counts.sessions_open; }

  /// How many sessions, of slices and of the store, are open now.
  [[nodiscard]] int open_sessions() const noexcept { return counts.sessions_open.load(); }

  /// Counts a slice that began running; slice_ended() when it is answered.
  void slice_began() noexcept { counts.slices_running.fetch_add(1); }
  void slice_ended() noexcept { counts.slices_running.fetch_sub(1); }

  /// How many slices are running now.
  [[nodiscard]] int running_slices() const noexcept { return counts.slices_running.load(); }

private:
  std::vector<std::shared_ptr<const detail::node_library>> libraries_;
  bool accept_code_;
  std::string code_dir_;
  mutable std::mutex lock_;
  std::map<std::string, std::shared_ptr<const detail::node_library>> shipped_;
  std::atomic<std::uint64_t> served_{0};
  std::atomic<int> slice_sessions_{0};
  machine_sampler sampler_;
};

} // namespace soma::serve

SOMA_API_END
