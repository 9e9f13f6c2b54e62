#pragma once

/// @file
/// soma::context: what a node can do besides computing its output.

#include <cstdint>
#include <string>
#include <string_view>

#include "soma/export.hpp"
#include "soma/fact.hpp"

SOMA_API_BEGIN

namespace caf {
class execution_unit;
} // namespace caf

namespace soma {

namespace detail {
class forward_state;
} // namespace detail

/// Handed to a node's `forward` for the length of that call: the node says
/// its own facts through it. Valid only during the call; do not keep it.
class context {
public:
  /// Tells every watcher of this forward `x`, now, in order with the engine's
  /// facts. Throws std::invalid_argument when `x` is named with one of the
  /// engine's words (soma/vocabulary.hpp) or has a field named "fact": those
  /// are the engine's to say.
  void tell(fact x);

  /// Says how far the node is through a collection: an `items` fact with
  /// `node`, `done` and `of`.
  void items(std::uint64_t done, std::uint64_t of);

  /// The name of the node running.
  [[nodiscard]] std::string_view node() const noexcept { return node_; }

  /// Microseconds since the forward began.
  [[nodiscard]] std::int64_t since_began_us() const noexcept;

  /// Made by the engine, one per node call.
  context(detail::forward_state& forward, const std::string& node,
          caf::execution_unit* host) noexcept
    : forward_(forward), node_(node), host_(host) {}

  context(const context&) = delete;
  context& operator=(const context&) = delete;

private:
  detail::forward_state& forward_;
  const std::string& node_;
  caf::execution_unit* host_;
};

} // namespace soma

SOMA_API_END
