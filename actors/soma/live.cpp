#include "soma/live.hpp"

#include <mutex>

#include <caf/actor_system.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/scoped_actor.hpp>
#include <caf/send.hpp>

namespace soma {

namespace {

using sync_atom = caf::atom_constant<caf::atom("sync")>;

} // namespace

/// The tally, shared by the actor (which adds) and the handle (which reads
/// a copy); an uncontended lock costs about 20 ns a fact.
struct live::shared {
  explicit shared(draw::tally t) : tally(std::move(t)) {}
  std::mutex mtx;
  draw::tally tally;
};

live::live(caf::actor_system& sys, live_options options)
  : sys_(&sys),
    shared_(std::make_shared<shared>(draw::tally{options.fact, options.bound})),
    options_(std::move(options)) {
  actor_ = sys.spawn([s = shared_](caf::event_based_actor*) -> caf::behavior {
    return {
      [s](const forward_fact& x) {
        std::lock_guard lock{s->mtx};
        s->tally.add(x.forward, x.fact);
      },
      [s](const fact& x) {
        std::lock_guard lock{s->mtx};
        s->tally.add(x);
      },
      [](sync_atom) { return caf::unit; },
    };
  });
}

live::~live() {
  stop();
}

live& live::operator=(live&& other) noexcept {
  if (this != &other) {
    stop();
    sys_ = other.sys_;
    actor_ = std::move(other.actor_);
    shared_ = std::move(other.shared_);
    options_ = std::move(other.options_);
  }
  return *this;
}

void live::stop() noexcept {
  if (actor_)
    caf::anon_send_exit(actor_, caf::exit_reason::user_shutdown);
  actor_ = nullptr;
}

void live::tell(fact x) const {
  caf::anon_send(actor_, std::move(x));
}

draw::tally live::snapshot() const {
  // A round trip behind everything already in the mailbox.
  caf::scoped_actor self{*sys_};
  self->request(actor_, caf::infinite, sync_atom::value).receive([](caf::unit_t) {},
                                                                  [](caf::error&) {});
  std::lock_guard lock{shared_->mtx};
  return shared_->tally;
}

draw::figure live::figure() const {
  auto t = snapshot();
  return draw::progress(t.values(), options_.run, options_.fact,
                        {.window = options_.window, .every = t.every()});
}

} // namespace soma
