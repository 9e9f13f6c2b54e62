#include "soma/remote/caller_trips.hpp"

#include <utility>
#include <vector>

#include <caf/actor_cast.hpp>
#include <caf/actor_companion.hpp>
#include <caf/actor_system.hpp>
#include <caf/default_attachable.hpp>
#include <caf/mailbox_element.hpp>
#include <caf/scoped_execution_unit.hpp>
#include <caf/spawn_options.hpp>
#include <caf/system_messages.hpp>

#include "soma/graph/parking.hpp"
#include "soma/remote/protocol.hpp"

namespace soma::detail {

/// One caller waiting for its answer, on its own stack.
struct caller_trips::waiter {
  caf::actor_addr session;
  outcome result;
  parking parked;
};

namespace {

caf::actor_companion* companion(const caf::actor& a) {
  return static_cast<caf::actor_companion*>(caf::actor_cast<caf::abstract_actor*>(a));
}

} // namespace

caller_trips::caller_trips(caf::actor_system& sys) : sys_(sys) {
  // Hidden: a receiver that is never quit by hand must not keep the actor
  // system's shutdown waiting (the link that owns it ends it).
  receiver_ = sys.spawn<caf::actor_companion, caf::hidden>();
  companion(receiver_)->on_enqueue([this](caf::mailbox_element_ptr x) { take(x); });
}

caller_trips::~caller_trips() {
  // No caller waits: each holds the link that owns this. But an answer may
  // still be delivered to the companion (one that came after its caller's
  // deadline, already routed to it): its handler goes first, under the
  // companion's own lock, which also waits for a handler running now. CAF's
  // cleanup does not drop it (only a scheduled actor's finalize would).
  auto* c = companion(receiver_);
  c->on_enqueue({});
  // Ending it drops its entry in the actor registry, where CAF's network
  // layer put it to route answers to it.
  caf::scoped_execution_unit host{&sys_};
  c->cleanup(caf::make_error(caf::exit_reason::user_shutdown), &host);
}

// Runs on whichever thread delivers: CAF's network layer's for an answer or
// a lost connection (the middleman's, with soma::system_config's
// `middleman.workers` = 0), a scheduler's for a session proxy that went.
void caller_trips::take(caf::mailbox_element_ptr& x) {
  auto& content = x->content();
  std::lock_guard guard{lock_};
  if (content.match_elements<caf::down_msg>()) {
    auto& dm = content.get_as<caf::down_msg>(0);
    watched_.erase(dm.source);
    for (auto i = waiting_.begin(); i != waiting_.end();) {
      auto* w = i->second;
      if (w->session != dm.source) {
        ++i;
        continue;
      }
      i = waiting_.erase(i);
      w->result.kind = outcome::lost;
      w->parked.release(); // last: the waiter may be gone right after
    }
    return;
  }
  if (!x->mid.is_response())
    return;
  auto i = waiting_.find(x->mid.request_id().integer_value());
  if (i == waiting_.end())
    return; // a trip that ended first (its deadline): nobody waits for it
  auto* w = i->second;
  waiting_.erase(i);
  if (content.match_elements<std::string, std::string>()) {
    w->result.kind = outcome::answered;
    w->result.header = content.move_if_unshared<std::string>(0);
    w->result.output = content.move_if_unshared<std::string>(1);
  } else {
    // An error (its session went, or refused), or an answer of another
    // shape: the trip is lost, and the link says what is known of why.
    w->result.kind = outcome::lost;
  }
  w->parked.release();
}

caller_trips::outcome caller_trips::ask(const caf::actor& session, const std::string& header,
                                        std::string input,
                                        const std::optional<std::chrono::steady_clock::time_point>& until) {
  waiter w;
  w.session = session.address();
  auto n = next_id_.fetch_add(1, std::memory_order_relaxed);
  bool watch = false;
  {
    std::lock_guard guard{lock_};
    waiting_.emplace(n, &w);
    watch = watched_.insert(w.session).second;
  }
  try {
    // Once per session: a monitor on a session already gone says so at once.
    if (watch)
      caf::actor_cast<caf::abstract_actor*>(session)->attach(
        caf::default_attachable::make_monitor(w.session, receiver_.address()));
    session->enqueue(caf::make_mailbox_element(caf::actor_cast<caf::strong_actor_ptr>(receiver_),
                                               caf::make_message_id(n), {}, slice_atom::value,
                                               header, std::move(input)),
                     nullptr);
  } catch (...) {
    // Out of memory before the trip left: nobody may find `w` once it goes.
    std::lock_guard guard{lock_};
    waiting_.erase(n);
    throw;
  }
  if (until && !w.parked.wait_until(*until)) {
    std::lock_guard guard{lock_};
    if (waiting_.erase(n) != 0) {
      w.result.kind = outcome::timed_out;
      return std::move(w.result);
    }
    // Its answer came meanwhile: it was handed over under the lock.
  }
  w.parked.wait();
  // take() releases the waiter under the lock; taking it here makes sure
  // that release has returned before `w`, on this stack, goes.
  std::lock_guard guard{lock_};
  return std::move(w.result);
}

} // namespace soma::detail
