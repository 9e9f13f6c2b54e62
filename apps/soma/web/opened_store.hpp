#pragma once

// The store a command (or the Python module) reads or writes: a directory, or a served store
// (soma://HOST:PORT) reached through an actor system of the command's own,
// made only for one, with TLS from $SOMA_TLS_CERT, $SOMA_TLS_KEY and
// $SOMA_TLS_CA when they are set.

#include <memory>
#include <optional>
#include <string>

#include <caf/fwd.hpp>

#include "soma/store/store.hpp"

namespace soma {
class system_config;
} // namespace soma

namespace soma::web {

class opened_store {
public:
  /// Throws store_error saying why it cannot be opened.
  opened_store(const std::string& where, store_options options);
  ~opened_store();

  opened_store(const opened_store&) = delete;
  opened_store& operator=(const opened_store&) = delete;

  [[nodiscard]] store& get() noexcept { return *store_; }

private:
  std::unique_ptr<soma::system_config> cfg_;
  std::unique_ptr<caf::actor_system> sys_;
  std::optional<store> store_; ///< closed before the system it was opened through
};

} // namespace soma::web
