#pragma once

// Plain CAF's remote request/response, beside soma's trip: the peer process
// (bench_remote_caf_peer) and the two ways bench_remote times it, one at a
// time (beside row c) and many in flight (beside row d).

#include <sys/types.h>

#include <cstddef>
#include <string>
#include <vector>

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>

/// A bench_remote_caf_peer process and its published actor, reached through
/// `sys`'s middleman over 127.0.0.1. The destructor closes the peer's stdin
/// (it then exits) and reaps it, killing it after 10 s. Ends the driver with
/// a message when the peer cannot be started or reached.
class caf_peer {
public:
  caf_peer(caf::actor_system& sys, const std::string& program, const std::vector<std::string>& caf_args);
  caf_peer(const caf_peer&) = delete;
  caf_peer& operator=(const caf_peer&) = delete;
  ~caf_peer();

  /// Makes the peer answer every request with `bytes` bytes.
  void reply_bytes(std::size_t bytes);

  const caf::actor& actor() const { return actor_; }
  pid_t pid() const { return pid_; }

private:
  caf::actor_system& sys_;
  pid_t pid_ = -1;
  int stdin_ = -1;
  caf::actor actor_;
};

/// µs per request/response of `payload` to `peer`, one at a time from a
/// scoped actor, after n/10 + 1 untimed. Every answer must be `reply` bytes
/// long, or the driver ends with a message.
double plain_trips(caf::actor_system& sys, const caf::actor& peer, const std::string& payload,
                   std::size_t reply, std::size_t n);

/// A local event-based actor in `sys` that passes each std::string on to
/// `peer` as a request and its answer back to whoever asked: one hop in the
/// caller's scheduler each way, as soma's slice actor makes. Send it an
/// exit when done: CAF's middleman keeps a reference to any actor that sent
/// to another node, so it outlives its handles and `sys` would wait for it.
caf::actor plain_relay(caf::actor_system& sys, const caf_peer& peer);

/// µs per request/response with `k` in flight at any moment, asked by one
/// scoped actor as row d asks soma (send, one more on each answer).
double plain_in_flight(caf::actor_system& sys, const caf::actor& peer, const std::string& payload,
                       std::size_t reply, std::size_t n, std::size_t k);
