#pragma once

/// @file
/// Node libraries as files: which one defines a node type in this process,
/// and loading one into a worker.

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "soma/export.hpp"
#include "soma/node_library.hpp"

namespace soma::detail {

/// A node library: where it is, what it is, what it serves.
struct node_library {
  std::string path;       ///< the file
  std::string definition; ///< SHA-256 of the file, hex
  const std::vector<library_entry>* entries = nullptr; ///< its nodes (maybe none)
  const std::vector<trial_function_entry>* trials = nullptr; ///< its trial functions (maybe none)
  void* handle = nullptr; ///< dlopen's handle; libraries are never unloaded

  /// The entry for `type`, or nullptr.
  [[nodiscard]] const library_entry* find(std::string_view type) const;
};

/// The node library loaded in this process that lists `type`. Throws
/// std::invalid_argument naming the type when none does (the node is then
/// defined in the program itself, or in a library without SOMA_NODE_LIBRARY).
const node_library& library_defining(const std::string& type);

/// Loads the node library at `path` (dlopen, local symbols) and hashes it.
/// Throws std::runtime_error naming the file when it cannot be loaded or has
/// neither SOMA_NODE_LIBRARY nor SOMA_TRIAL_FUNCTIONS of its own.
SOMA_API_EXPORT std::shared_ptr<const node_library> load_node_library(const std::string& path);

/// SHA-256 of `bytes`, hex.
std::string sha256_hex(std::string_view bytes);

/// The whole content of the file at `path`; throws std::runtime_error naming it.
std::string read_file(const std::string& path);

} // namespace soma::detail
