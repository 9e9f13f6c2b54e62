#pragma once

/// @file
/// The local backend: a store in a directory on this host, in an LMDB
/// environment this process opened (one per directory per process).

#include <memory>
#include <string>

#include "soma/store/backend.hpp"
#include "soma/store/store.hpp"

namespace soma::detail {

/// The backend of the store in `dir`, sharing this process's environment of
/// that directory when one is open. Throws store_error.
[[nodiscard]] std::shared_ptr<backend> open_local(const std::string& dir,
                                                  const store_options& options);

} // namespace soma::detail
