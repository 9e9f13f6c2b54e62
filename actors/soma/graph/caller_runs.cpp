#include "soma/graph/caller_runs.hpp"

#include <algorithm>
#include <cstring>
#include <exception>
#include <mutex>
#include <unordered_map>

#include <caf/actor_cast.hpp>
#include <caf/actor_system.hpp>
#include <caf/execution_unit.hpp>
#include <caf/resumable.hpp>
#include <caf/scheduled_actor.hpp>
#include <caf/scheduler/abstract_coordinator.hpp>

#include "soma/detail/deterministic.hpp"
#include "soma/graph/node_actor.hpp"

namespace soma::detail {

namespace {

// The execution unit a blocked caller runs actors with: an actor resumed
// there sends with it (caf::local_actor::context()), so the actors its
// messages make ready come back to exec_later. One per actor system, made
// once and never destroyed: an actor keeps the unit it last ran with as its
// context until a worker runs it again, and a response promise delivered
// meanwhile, from any thread, enqueues with it.
class caller_unit final : public caf::execution_unit {
public:
  explicit caller_unit(caf::actor_system* sys) : caf::execution_unit(sys) {}

  // A job is ready (its reference was taken for whoever runs it). Kept here
  // when this thread is running a caller of this unit's system and the job
  // is one of its graph's nodes; else CAF's scheduler runs it, which is
  // what every other thread (a worker delivering a promise of an actor
  // last run here) gets too.
  void exec_later(caf::resumable* job) override;
};

// A graph's node actors, and the unit its callers run them with.
class graph_nodes final : public caller_nodes {
public:
  graph_nodes(caller_unit& unit, std::vector<caf::resumable*> nodes)
    : unit_(unit), nodes_(std::move(nodes)) {}

  void run(caf::abstract_actor& first, caf::mailbox_element_ptr step, const parking& done) const override;

  [[nodiscard]] caller_unit& unit() const noexcept { return unit_; }

  [[nodiscard]] bool holds(caf::resumable* job) const noexcept {
    return std::find(nodes_.begin(), nodes_.end(), job) != nodes_.end();
  }

private:
  caller_unit& unit_;
  std::vector<caf::resumable*> nodes_; ///< compared, never used: the graph keeps them alive
};

// One blocked caller's run on this thread: its graph, and the nodes its
// forward made ready (the last made ready runs first, as on a CAF worker).
// A node that calls a forward of its own nests a run inside.
struct caller_run {
  const graph_nodes* graph;
  std::vector<caf::resumable*> ready;
  caller_run* outer;
};

thread_local caller_run* running = nullptr;

void caller_unit::exec_later(caf::resumable* job) {
  if (running != nullptr && &running->graph->unit() == this && running->graph->holds(job))
    running->ready.push_back(job);
  else
    system().scheduler().enqueue(job);
}

// The caller unit of `sys`. An actor system made later at the same address
// takes it over, and it is right for that one too: all it keeps is the
// address.
caller_unit& unit_of(caf::actor_system& sys) {
  static std::mutex guard;
  static auto* units = new std::unordered_map<caf::actor_system*, caller_unit*>; // never freed
  std::lock_guard lock{guard};
  auto& unit = (*units)[&sys];
  if (unit == nullptr)
    unit = new caller_unit(&sys); // never freed, as above
  return *unit;
}

} // namespace

std::shared_ptr<const caller_nodes> caller_nodes_of(caf::actor_system& sys,
                                                    const std::vector<caf::actor>& actors) {
  if (deterministic(sys))
    return nullptr;
  std::vector<caf::resumable*> nodes;
  for (auto& a : actors) {
    auto* actor = dynamic_cast<caf::scheduled_actor*>(caf::actor_cast<caf::abstract_actor*>(a));
    if (actor != nullptr && std::strcmp(actor->name(), node_actor_name) == 0)
      nodes.push_back(actor);
  }
  if (nodes.empty())
    return nullptr;
  return std::make_shared<graph_nodes>(unit_of(sys), std::move(nodes));
}

void graph_nodes::run(caf::abstract_actor& first, caf::mailbox_element_ptr step, const parking& done) const {
  caller_run run{this, {}, running};
  running = &run;
  // However this ends, the thread stops being a caller first, and what is
  // still ready here goes to the scheduler with its reference.
  struct ending {
    caller_run& run;
    ~ending() {
      running = run.outer;
      for (auto* job : run.ready)
        run.graph->unit().system().scheduler().enqueue(job);
    }
  } end{run};
  // A node is ready here at most once at a time (until its run ends), so
  // exec_later never allocates: CAF has unblocked the node's mailbox and
  // taken its reference by then, and a throw would leave it scheduled by
  // nobody.
  run.ready.reserve(nodes_.size());
  first.enqueue(std::move(step), &unit_);
  while (!done.released() && !run.ready.empty()) {
    auto* job = run.ready.back();
    run.ready.pop_back();
    caf::resumable::resume_result result;
    try {
      // One message: the one that made the node ready, this forward's step.
      result = job->resume(&unit_, 1);
    } catch (...) {
      std::terminate(); // as on a CAF worker, where nothing catches it either
    }
    if (result == caf::resumable::resume_later)
      // Other forwards' steps wait in its mailbox: a worker runs them (any
      // idle one may take it), not this caller.
      unit_.system().scheduler().enqueue(job);
    else // done or awaiting_message: whoever enqueues next takes a reference of its own
      caf::intrusive_ptr_release(job);
  }
}

} // namespace soma::detail
