#pragma once

// What the actor tests share: an actor system, a thread-safe fact collector
// (usable as a callable or behind an actor), and waiting with a deadline.

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <caf/actor_system.hpp>
#include <caf/event_based_actor.hpp>

#include "seed_nodes.hpp"
#include "soma/fact.hpp"
#include "soma/graph.hpp"
#include "soma/system_config.hpp"

namespace soma_test {

using namespace std::chrono_literals;

/// Every wait in these tests ends by this deadline.
inline constexpr auto deadline = 10s;

struct system_fixture {
  soma::system_config cfg;
  caf::actor_system sys{cfg};
};

/// Facts in the order they arrived, from any thread.
class collected {
public:
  void push(const soma::fact& f) {
    {
      std::lock_guard<std::mutex> guard{mtx_};
      facts_.push_back(f);
    }
    cv_.notify_all();
  }

  /// Waits until at least `n` facts arrived; false at the deadline.
  bool wait_for(size_t n) {
    std::unique_lock<std::mutex> guard{mtx_};
    return cv_.wait_for(guard, deadline, [&] { return facts_.size() >= n; });
  }

  std::vector<soma::fact> facts() const {
    std::lock_guard<std::mutex> guard{mtx_};
    return facts_;
  }

  size_t size() const {
    std::lock_guard<std::mutex> guard{mtx_};
    return facts_.size();
  }

private:
  mutable std::mutex mtx_;
  std::condition_variable cv_;
  std::vector<soma::fact> facts_;
};

/// An actor that handles soma::fact and pushes each into `into`.
inline caf::actor spawn_collector(caf::actor_system& sys, std::shared_ptr<collected> into) {
  return sys.spawn([into](caf::event_based_actor*) -> caf::behavior {
    return {[into](const soma::fact& f) { into->push(f); }};
  });
}

/// The facts' names, in order.
inline std::vector<std::string> names(const std::vector<soma::fact>& facts) {
  std::vector<std::string> out;
  for (auto& f : facts)
    out.push_back(f.name);
  return out;
}

/// The seed's graph: tokenize >> embed >> score.
inline auto seed_graph(caf::actor_system& sys) {
  return soma::graph::somatize(sys, Tokenize{}.named("tokenize") >> Embed{}.named("embed")
                                      >> Score{}.named("score"));
}

/// A field that must be a whole number, as one (-1 when it is not).
inline long long num(const soma::fact& f, std::string_view key) {
  return f[key].integer_or(-1);
}

} // namespace soma_test
