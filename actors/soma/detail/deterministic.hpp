#pragma once

/// @file
/// soma under CAF's deterministic test scheduler (scheduler.policy
/// "testing"), where a test runs every actor's messages one by one on its
/// own thread (tests/actors/deterministic.hpp). Three things change there:
/// - an actor whose handlers block (an LMDB write) is detached, on a thread
///   of its own, so it never holds one of the scheduler's; there it is
///   scheduled like any other, so the test drives it too;
/// - a caller that waits for an actor's answer (recorder::flush, closing a
///   recorder, a claimant going) runs the queued messages itself first, and
///   the test clock's timers while no answer has come: no other thread would;
/// - the reporter takes its steps on timer messages, not its own timed wait
///   (soma/reporter.cpp).

#include <utility>

#include <caf/actor_system.hpp>
#include <caf/blocking_actor.hpp>
#include <caf/local_actor.hpp>
#include <caf/spawn_options.hpp>

namespace soma::detail {

/// Whether `sys` runs under CAF's deterministic test scheduler.
[[nodiscard]] bool deterministic(const caf::actor_system& sys);

/// Under the deterministic scheduler, runs every queued message, then fires
/// the test clock's timers one at a time (running what each causes) until
/// a message has come to `self` (an answer it waits for; a retried write
/// waits on a timer), at most `timers` of them; elsewhere, nothing.
void run_until_told(caf::actor_system& sys, caf::blocking_actor& self, int timers = 1000);

/// Spawns `fun(xs...)`, an actor whose handlers block, in `sys`: detached,
/// or scheduled when `sys` is deterministic.
template <class F, class... Ts>
caf::actor spawn_blocking(caf::actor_system& sys, F fun, Ts&&... xs) {
  if (deterministic(sys))
    return sys.spawn(fun, std::forward<Ts>(xs)...);
  return sys.spawn<caf::detached>(fun, std::forward<Ts>(xs)...);
}

/// The same, linked to `parent`.
template <class F, class... Ts>
caf::actor spawn_blocking_linked(caf::local_actor* parent, F fun, Ts&&... xs) {
  if (deterministic(parent->home_system()))
    return parent->spawn<caf::linked>(fun, std::forward<Ts>(xs)...);
  return parent->spawn<caf::detached + caf::linked>(fun, std::forward<Ts>(xs)...);
}

} // namespace soma::detail
