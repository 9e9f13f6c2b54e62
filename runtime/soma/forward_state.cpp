#include "soma/forward_state.hpp"

#include <atomic>
#include <exception>
#include <span>

#include <caf/actor.hpp>
#include <caf/local_actor.hpp>
#include <caf/mailbox_element.hpp>

#include "soma/detail/letter.hpp"
#include "soma/vocabulary.hpp"

namespace soma::detail {

namespace {

// Forward ids, unique in the process. Constant-initialised: no constructor
// runs before main.
std::atomic<std::uint64_t> next_id{1};

// Drops callable `i` of `count` (it threw): it is told nothing more.
inline void drop(std::vector<bool>& dropped, std::size_t i, std::size_t count) {
  if (dropped.empty())
    dropped.resize(count);
  dropped[i] = true;
}

// Tells the callables `calls` `x`, in order, but those `dropped`. One that
// throws is dropped, and the first error any watcher threw kept in `error`.
inline void tell_callables(const std::vector<std::function<void(const fact&)>>& calls,
                           const fact& x, std::vector<bool>& dropped,
                           std::optional<std::string>& error) {
  for (std::size_t i = 0; i < calls.size(); ++i) {
    if (!dropped.empty() && dropped[i])
      continue;
    try {
      calls[i](x);
    } catch (const std::exception& e) {
      drop(dropped, i, calls.size());
      if (!error)
        error = "watcher " + std::to_string(i) + " threw while told '" + x.name + "': " + e.what();
    } catch (...) {
      drop(dropped, i, calls.size());
      if (!error)
        error = "watcher " + std::to_string(i) + " threw while told '" + x.name
                + "' (not a std::exception)";
    }
  }
}

// Tells every sink `x` of forward `id`; the first error kept in `error`.
inline void tell_sinks(const std::vector<watcher::sink_fn>& sinks, std::uint64_t id,
                       const fact& x, std::optional<std::string>& error) {
  for (auto& sink : sinks) {
    try {
      sink(id, x);
    } catch (const std::exception& e) {
      if (!error)
        error = "a sink threw while told '" + x.name + "': " + e.what();
    } catch (...) {
      if (!error)
        error = "a sink threw while told '" + x.name + "'";
    }
  }
}

// Tells every actor of `to` a `T` that `fill` writes into a letter's value
// (detail/letter.hpp): a letter each, from this thread's pool, so that
// nothing is allocated here nor freed on the watcher's thread.
template <class T, class Fill>
void send_letters(std::span<const caf::actor> to, caf::execution_unit* host, Fill&& fill) {
  for (auto& a : to) {
    auto* l = take_letter<T>();
    caf::mailbox_element_ptr sent{l}; // back to the pool should `fill` throw
    fill(l->value);
    caf::actor_cast<caf::abstract_actor*>(a)->enqueue(std::move(sent), host);
  }
}

} // namespace

forward_state::forward_state(soma::watching owned)
  : id_(next_id.fetch_add(1, std::memory_order_relaxed)),
    began_(clock::now()),
    owned_(std::move(owned)),
    watching_(&*owned_) {
}

forward_state::forward_state(const soma::watching* borrowed)
  : id_(next_id.fetch_add(1, std::memory_order_relaxed)),
    began_(clock::now()),
    watching_(borrowed) {
}

forward_state::~forward_state() {
  if (gathering_) // a forward that never ended: its letter back to the pool
    gathering_->request_deletion(false);
}

void forward_state::emit(fact&& x, caf::execution_unit* host) {
  std::unique_lock<std::mutex> calling;
  if (calling_) {
    calling = std::unique_lock{*calling_};
    if (callables_off_)
      calling.unlock();
  }
  if (!calling_ || !callables_off_)
    tell_callables(watching_->callables(), x, dropped_, watcher_error_);
  // Sinks own what they touch: told even after the caller left, under the
  // same lock (never twice at once for one forward).
  if (calling_ && !calling.owns_lock() && !watching_->sinks().empty())
    calling = std::unique_lock{*calling_};
  tell_sinks(watching_->sinks(), id_, x, watcher_error_);
  if (calling.owns_lock())
    calling.unlock();
  if (auto& whole = watching_->whole_forwards(); !whole.empty()) {
    // Only the actor holding the forward says facts, so the gathering letter
    // is touched by one thread at a time, handed on with the forward.
    if (!gathering_)
      gathering_ = take_letter<forward_facts>();
    auto& facts = gathering_->value.facts;
    if (gathered_ < facts.size())
      facts[gathered_] = x; // into the capacity its last forward left
    else
      facts.push_back(x);
    ++gathered_;
    if (vocabulary::ends_forward(x.name)) {
      facts.resize(gathered_); // what the letter's last forward had beyond
      gathering_->value.forward = id_;
      // Every whole-forward actor but the last gets a copy; the last (or
      // only) one the gathering letter itself.
      std::size_t copies = whole.size() - 1;
      send_letters<forward_facts>(std::span{whole}.first(copies), host, [&](forward_facts& v) {
        v.forward = id_;
        v.facts = facts;
      });
      caf::mailbox_element_ptr sent{gathering_};
      gathering_ = nullptr;
      gathered_ = 0;
      caf::actor_cast<caf::abstract_actor*>(whole[copies])->enqueue(std::move(sent), host);
    }
  }
  auto& actors = watching_->actors();
  auto& aware = watching_->forward_aware();
  if (actors.empty() && aware.empty())
    return;
  if (!actors.empty())
    send_letters<fact>(actors, host, [&](fact& v) { v = x; });
  if (!aware.empty())
    send_letters<forward_fact>(aware, host, [&](forward_fact& v) {
      v.forward = id_;
      v.fact = x;
    });
}

void forward_state::own_watchers() {
  if (!owned_) {
    owned_.emplace(*watching_);
    watching_ = &*owned_;
  }
  if (!calling_)
    calling_ = std::make_unique<std::mutex>();
}

std::string forward_state::deadline_error() const {
  return "the forward did not end within " + std::to_string(allowed_.count())
         + " ms (forward_options.deadline)";
}

void forward_state::say_expired(const std::string& node, caf::execution_unit* host) {
  if (deadline_said_ || end_.load(std::memory_order_acquire) != by_deadline)
    return;
  deadline_said_ = true;
  std::string at = node;
  {
    std::lock_guard guard{where_lock_};
    if (struck_)
      at = *struck_;
  }
  emit(broke_fact(at, deadline_error(), since_began_us(clock::now())), host);
}

bool forward_state::take_end(const std::string& node, caf::execution_unit* host) {
  int expected = open;
  if (end_.compare_exchange_strong(expected, by_actor, std::memory_order_acq_rel))
    return true;
  say_expired(node, host);
  return false;
}

namespace {

// The execution unit of the actor at hand: none on a blocked caller's thread.
caf::execution_unit* unit_of(caf::local_actor* self) { return self ? self->context() : nullptr; }

} // namespace

bool forward_state::expired_at(const std::string& node, caf::local_actor* self) {
  if (!deadline_)
    return false;
  {
    std::lock_guard guard{where_lock_};
    if (at_ != node)
      at_ = node;
  }
  if (ended()) {
    say_expired(node, unit_of(self));
    return true;
  }
  if (clock::now() < *deadline_)
    return false;
  int expected = open;
  strike_here();
  if (end_.compare_exchange_strong(expected, by_deadline, std::memory_order_acq_rel)) {
    say_expired(node, unit_of(self));
    fail(node, deadline_error(), self);
  } else {
    say_expired(node, unit_of(self));
  }
  return true;
}

void forward_state::expire(caf::local_actor* self, bool say) {
  int expected = open;
  strike_here();
  if (!end_.compare_exchange_strong(expected, by_deadline, std::memory_order_acq_rel)) {
    if (say)
      say_expired(where(), unit_of(self));
    return;
  }
  auto node = where();
  if (say)
    say_expired(node, unit_of(self));
  fail(node, deadline_error(), self);
}

bool forward_state::claim_for_caller() {
  int expected = open;
  strike_here();
  if (!end_.compare_exchange_strong(expected, by_deadline, std::memory_order_acq_rel))
    return false;
  if (calling_) {
    std::lock_guard guard{*calling_};
    callables_off_ = true;
  }
  return true;
}

namespace {

fact make(std::string_view name, std::initializer_list<field> fs) {
  return fact{std::string{name}, std::vector<field>(fs)};
}

} // namespace

std::string what(std::exception_ptr e) {
  try {
    std::rethrow_exception(std::move(e));
  } catch (const std::exception& x) {
    return x.what();
  } catch (const std::string& x) {
    return x;
  } catch (const char* x) {
    return x;
  } catch (...) {
    return "an exception that is not a std::exception";
  }
}

fact ran_fact(const std::string& node, std::int64_t began_us, std::int64_t took_us) {
  return make("ran", {{"node", node}, {"began_us", began_us}, {"took_us", took_us}});
}

fact failed_fact(const std::string& node, const std::string& error, std::int64_t began_us,
                 std::int64_t took_us) {
  return make("failed", {{"node", node}, {"error", error}, {"began_us", began_us},
                         {"took_us", took_us}});
}

fact broke_fact(const std::string& node, const std::string& error, std::int64_t took_us) {
  return make("broke", {{"node", node}, {"error", error}, {"took_us", took_us}});
}

fact recalled_fact(const std::string& node, std::int64_t began_us, std::int64_t took_us,
                   std::size_t bytes) {
  return make("recalled", {{"node", node}, {"began_us", began_us}, {"took_us", took_us},
                           {"bytes", bytes}});
}

fact kept_fact(const std::string& node, std::int64_t began_us, std::int64_t took_us,
               std::size_t bytes) {
  return make("kept", {{"node", node}, {"began_us", began_us}, {"took_us", took_us},
                       {"bytes", bytes}});
}

fact finished_fact(std::int64_t took_us) {
  return make("finished", {{"took_us", took_us}});
}

} // namespace soma::detail
