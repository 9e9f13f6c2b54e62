#include "soma/detail/forward_state.hpp"

#include <atomic>
#include <exception>

#include <caf/actor.hpp>
#include <caf/mailbox_element.hpp>
#include <caf/make_message.hpp>

namespace soma::detail {

namespace {

// Forward ids, unique in the process. Constant-initialised: no constructor
// runs before main.
std::atomic<std::uint64_t> next_id{1};

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

forward_state::~forward_state() = default;

void forward_state::emit(fact&& x, caf::execution_unit* host) {
  auto& calls = watching_->callables();
  for (std::size_t i = 0; i < calls.size(); ++i) {
    if (!dropped_.empty() && dropped_[i])
      continue;
    try {
      calls[i](x);
    } catch (const std::exception& e) {
      if (dropped_.empty())
        dropped_.resize(calls.size());
      dropped_[i] = true;
      if (!watcher_error_)
        watcher_error_ = "watcher " + std::to_string(i) + " threw while told '" + x.name
                         + "': " + e.what();
    } catch (...) {
      if (dropped_.empty())
        dropped_.resize(calls.size());
      dropped_[i] = true;
      if (!watcher_error_)
        watcher_error_ = "watcher " + std::to_string(i) + " threw while told '" + x.name
                         + "' (not a std::exception)";
    }
  }
  auto& actors = watching_->actors();
  auto& aware = watching_->forward_aware();
  if (actors.empty() && aware.empty())
    return;
  // One message shared by every actor of a kind: copied once, not per actor.
  auto send = [host](const std::vector<caf::actor>& to, const caf::message& msg) {
    for (auto& a : to)
      caf::actor_cast<caf::abstract_actor*>(a)->enqueue(nullptr, caf::make_message_id(), msg,
                                                         host);
  };
  if (aware.empty()) {
    send(actors, caf::make_message(std::move(x)));
  } else if (actors.empty()) {
    send(aware, caf::make_message(forward_fact{id_, std::move(x)}));
  } else {
    send(actors, caf::make_message(x));
    send(aware, caf::make_message(forward_fact{id_, std::move(x)}));
  }
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
