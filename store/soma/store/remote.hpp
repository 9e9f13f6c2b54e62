#pragma once

/// @file
/// A store on another host, reached through a soma-node that serves it
/// (`soma-node --serve-store DIR`, `soma::store{"soma://host:port"}`). LMDB must
/// not sit on a network file system, so the bytes stay on the server's disk
/// and what travels are the writes, and a snapshot for reading.

#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "soma/store/store.hpp"

namespace soma::detail {

/// The client's connection to a served store. Implemented where CAF's
/// network layer is (soma_actors); `call` blocks, bounded, and throws
/// store_error naming the server when it cannot be done.
class remote_link {
public:
  virtual ~remote_link() = default;

  /// Asks the server to do `op` ("records", "reading", "snapshot") with
  /// `payload` (Cap'n Proto bytes) and returns its answer.
  virtual std::string call(const std::string& op, std::string payload) = 0;

  /// "soma://host:port".
  [[nodiscard]] virtual const std::string& address() const noexcept = 0;
};

/// Makes links: registered by soma_actors when it is loaded.
using remote_opener = std::function<std::shared_ptr<remote_link>(const std::string& address,
                                                                 const store_options& options)>;

void set_remote_opener(remote_opener opener);

/// Whether `dir` names a served store ("soma://...").
[[nodiscard]] bool is_remote_address(std::string_view dir) noexcept;

} // namespace soma::detail
