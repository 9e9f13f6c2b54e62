// (b) The floor for an actor hop: two event-based actors passing a number
// back and forth, nothing else.

#include <future>
#include <memory>

#include <caf/actor_system.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/stateful_actor.hpp>

#include "bench.hpp"

namespace bench {

namespace {

using done_promise = std::shared_ptr<std::promise<clock::time_point>>;

caf::behavior pong(caf::event_based_actor* self) {
  return {
    [self](std::int64_t x) {
      self->send(caf::actor_cast<caf::actor>(self->current_sender()), x + 1);
    },
  };
}

struct ping_state {
  std::size_t left = 0;
  static inline const char* name = "bench.ping";
};

caf::behavior ping(caf::stateful_actor<ping_state>* self, caf::actor other,
                   std::size_t rounds, done_promise done) {
  self->state.left = rounds;
  self->send(other, std::int64_t{0});
  return {
    [self, other, done](std::int64_t x) {
      if (--self->state.left == 0) {
        // Stamped here, not by the waiting thread, so its wake-up is not timed.
        done->set_value(clock::now());
        self->quit();
        return;
      }
      self->send(other, x);
    },
  };
}

} // namespace

std::vector<row> caf_pingpong(caf::actor_system& sys, const options& opt) {
  row trip{"b  caf ping-pong, per round trip"};
  auto other = sys.spawn(pong);
  measure(trip, opt.reps, opt.forwards, [&](std::size_t n) {
    auto done = std::make_shared<std::promise<clock::time_point>>();
    auto ended = done->get_future();
    auto began = clock::now();
    sys.spawn(ping, other, n, done);
    return ended.get() - began;
  });
  caf::anon_send_exit(other, caf::exit_reason::user_shutdown);
  // One round trip is two hops; a 3-node forward is four (in, two between
  // nodes, out).
  row hop{"b  caf ping-pong, per hop"};
  for (double us : trip.us)
    hop.us.push_back(us / 2);
  return {std::move(hop), std::move(trip)};
}

} // namespace bench
