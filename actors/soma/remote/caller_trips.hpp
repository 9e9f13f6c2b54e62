#pragma once

/// @file
/// Trips sent from a blocked caller's own thread (docs/architecture.md, "A
/// trip, file by file"): the caller puts its request on the worker's
/// connection itself, and the answer is handed straight back to it. No
/// local actor runs in between either way.
///
/// One per worker link. Its receiver is a CAF actor companion: an actor
/// with no mailbox of its own, whose enqueue (run by the thread of CAF's
/// network layer that delivers the answer: the middleman's, with
/// soma::system_config's `middleman.workers` = 0) finds the caller waiting
/// for it and wakes it.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>

#include <caf/actor.hpp>
#include <caf/actor_addr.hpp>
#include <caf/fwd.hpp>

namespace soma::detail {

class caller_trips {
public:
  explicit caller_trips(caf::actor_system& sys);
  ~caller_trips();
  caller_trips(const caller_trips&) = delete;
  caller_trips& operator=(const caller_trips&) = delete;

  /// How a trip ended.
  struct outcome {
    /// lost: its session went, or answered with an error or an answer of
    /// another shape; the link says what is known of why (worker_link::loss).
    enum kind_type { answered, lost, timed_out } kind = lost;
    std::string header; ///< answered: the SliceResult
    std::string output; ///< answered: the last node's output
  };

  /// Sends `(slice_atom, header, input)` to `session` as a request and
  /// waits, on this thread, until its answer comes, the session goes (it is
  /// monitored: a closed connection or CAF's connection timeout), or
  /// `until` passes. Safe from many threads at once.
  outcome ask(const caf::actor& session, const std::string& header, std::string input,
              const std::optional<std::chrono::steady_clock::time_point>& until);

private:
  struct waiter;
  void take(caf::mailbox_element_ptr& x);

  caf::actor_system& sys_;
  caf::actor receiver_;
  std::atomic<std::uint64_t> next_id_{1};
  std::mutex lock_;
  std::map<std::uint64_t, waiter*> waiting_; ///< by request id
  std::set<caf::actor_addr> watched_;        ///< sessions monitored
};

} // namespace soma::detail
