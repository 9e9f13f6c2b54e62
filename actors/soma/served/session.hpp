#pragma once

/// @file
/// The served store's server side (soma-node --serve-store): the sessions
/// of its clients and what they share (served/protocol.hpp says what a
/// session is asked).
///
/// A session is a scheduled CAF actor, not a thread: ten thousand of them
/// cost their mailboxes. What blocks on the disk is done by a few actors
/// of their own, shared by every session:
/// - one group writer commits what arrived while it wrote the last group
///   (machine readings, client recorders' batches, trials added and ended)
///   in one write
///   transaction (soma/store/detail/write_group.hpp), and answers each once
///   that commit returned. Readings and batches wait for at most one commit
///   every 10 ms; a trial is written at once when the writer is idle (its
///   claimant waits for the answer). Readings alone take one sync (they are
///   expendable); anything else, two. A client recorder's run is a state of that writer,
///   not a thread. Once a tick it forgets machines a day behind the fleet;
/// - every other operation (readers' questions, the cache, claims and
///   reclaims of trials, a copy) goes to the next free one of a few
///   readers. A claim that finds no trial waits in its session, holding no
///   reader, and is asked again at once when the group writer wrote trials,
///   within about 2 ms when another writer moved the store, and every 50 ms
///   in any case, until its hold is over.

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include <caf/actor.hpp>
#include <caf/fwd.hpp>

#include "soma/store/store.hpp"

namespace soma::served {

/// What one served store's server may take.
struct service_limits {
  std::size_t sessions = 10000; ///< store sessions open at once (soma-node --store-sessions)
  std::size_t readers = 4;      ///< actors answering questions, the cache, claims and reclaims
  /// The group writer commits readings and batches at most once this often:
  /// those arriving meanwhile wait at most this long, and share one commit
  /// (a trial added or ended is written at once when the writer is idle).
  std::chrono::milliseconds commit_gap{10};
  /// How often stale machines are forgotten (forget_stale_machines).
  std::chrono::milliseconds forget_every = std::chrono::seconds(10);
};

/// Everything the sessions of one served store share: the store, its group
/// writer and readers, and the count of sessions open. Its actors stop when
/// the last owner lets it go.
class service {
public:
  /// `served` is opened writable on this host, with expendable_readings.
  /// Each operation asked of it is counted in `ops`, which outlives it
  /// (the worker's counters).
  service(caf::actor_system& sys, store served, service_limits limits,
          std::atomic<std::uint64_t>& ops);
  ~service();

  service(const service&) = delete;
  service& operator=(const service&) = delete;

  /// Counts a session opened; false (nothing counted) at the limit.
  [[nodiscard]] bool session_opened() noexcept;
  void session_closed() noexcept;
  [[nodiscard]] const service_limits& limits() const noexcept { return limits_; }

  [[nodiscard]] const store& served() const noexcept { return served_; }
  [[nodiscard]] const caf::actor& group_writer() const noexcept { return group_writer_; }
  [[nodiscard]] const caf::actor& readers() const noexcept { return readers_; }

  /// Counts one operation asked of it.
  void count_op() noexcept { ++ops_; }

private:
  store served_;
  service_limits limits_;
  std::atomic<std::uint64_t>& ops_;
  std::atomic<std::size_t> open_{0};
  caf::actor group_writer_;
  caf::actor readers_;
};

/// Where a server says what happens to its sessions: one line per event.
using session_log = std::function<void(const std::string&)>;

/// Spawns the session of `client` on `svc` (counted already with
/// session_opened, and uncounted when it ends): it ends when the client
/// goes, or with the actors it is linked to. `read_only`: it refuses every
/// operation that writes. `closed` runs when it ends, after its log line.
[[nodiscard]] caf::actor spawn_session(caf::actor_system& sys, std::shared_ptr<service> svc,
                                       caf::actor client, bool read_only, std::uint64_t number,
                                       session_log log, std::function<void()> closed);

} // namespace soma::served
