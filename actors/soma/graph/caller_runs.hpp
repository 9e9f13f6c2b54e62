#pragma once

/// @file
/// A blocked caller runs its graph's local nodes itself, on its own thread,
/// while it waits for the forward's end: the first step goes into the first
/// node's mailbox from the caller, and every node actor that the forward
/// makes ready (idle until now) runs next on the caller's thread, as a CAF
/// worker runs the actors its current actor sends to. No worker is woken
/// for a forward whose nodes are idle, and the caller is not put to sleep
/// and woken for the result: it is there when the last node returns.
///
/// Part of what the templates of soma/graph.hpp compile in your program, so
/// it is installed; it is not an API: its names are in soma::detail and
/// may change with any release.

#include <memory>
#include <vector>

#include <caf/actor.hpp>
#include <caf/fwd.hpp>
#include <caf/mailbox_element.hpp>

#include "soma/export.hpp"
#include "soma/graph/parking.hpp"

SOMA_API_BEGIN

namespace soma::detail {

/// The node actors of a graph that its blocked callers may run (a remote
/// slice's actor is not one: it stays on the scheduler's threads, which
/// keep its large buffers). Made by caller_nodes_of; shared by the graph's
/// handles.
class caller_nodes {
public:
  /// Puts `step` into `first`'s mailbox, then runs on this thread each of
  /// the nodes that the step makes ready (each was idle, so the message
  /// that woke it is this forward's step), that message alone, until
  /// `done` is released or nothing of theirs is ready here (a node was
  /// busy, so the step waits for a worker, or the forward waits on another
  /// actor or a worker's answer): the caller then waits on `done` as
  /// before. A node with more messages after the step, whatever else
  /// becomes ready meanwhile (a watcher actor told a fact, an actor
  /// spawned), and what is still ready here when `done` is released go to
  /// CAF's scheduler at once.
  virtual void run(caf::abstract_actor& first, caf::mailbox_element_ptr step, const parking& done) const = 0;

  virtual ~caller_nodes() = default;
};

/// The node actors among a graph's `actors` as caller_nodes; none when
/// there are none, or when `sys` runs under CAF's deterministic test
/// scheduler, whose test drives every actor.
[[nodiscard]] std::shared_ptr<const caller_nodes> caller_nodes_of(caf::actor_system& sys,
                                                                  const std::vector<caf::actor>& actors);

} // namespace soma::detail

SOMA_API_END
