#pragma once

/// @file
/// soma::broker: which worker each of a graph's host names means.

#include <initializer_list>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "soma/export.hpp"
#include "soma/forward_state.hpp"
#include "soma/remote/worker.hpp"

SOMA_API_BEGIN

namespace soma {

namespace detail {

SOMA_API_HIDDEN_BEGIN
class worker_link;
SOMA_API_HIDDEN_END

/// What a broker holds: the route a forward carries (forward_state.hpp).
class broker_state final : public route {
public:
  /// The link called `host`, or nullptr.
  SOMA_API_LOCAL std::shared_ptr<worker_link> find(const std::string& host) const;

  SOMA_API_LOCAL void put(std::string host, std::shared_ptr<worker_link> link);

  SOMA_API_LOCAL std::vector<std::string> hosts() const;

  /// Reconnects the lost links of these hosts where it can (blocking).
  void ready(const std::vector<std::string>& hosts) const;

  /// Whether ready(hosts) would have anything to do: a link without a session.
  [[nodiscard]] bool needs_ready(const std::vector<std::string>& hosts) const;

private:
  mutable std::mutex lock_;
  std::map<std::string, std::shared_ptr<worker_link>> links_;
};

} // namespace detail

/// Maps the host names of a graph (`.at("w1")`) to workers. Given to a
/// forward with `{.broker = b}`. A handle: copies share the map; any thread
/// may use it.
class broker {
public:
  /// A broker that knows these workers, in this process.
  static broker embedded(std::initializer_list<std::pair<std::string, worker>> workers);

  /// Says that `host` now means `w` (a new or replacement worker).
  void put(std::string host, worker w);

  /// The host names it knows.
  [[nodiscard]] std::vector<std::string> hosts() const;

  /// The shared state (used by forwards).
  [[nodiscard]] const std::shared_ptr<detail::broker_state>& state() const noexcept { return state_; }

private:
  broker();
  std::shared_ptr<detail::broker_state> state_;
};

} // namespace soma

SOMA_API_END
