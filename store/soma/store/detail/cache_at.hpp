#pragma once

/// @file
/// The cache of a store on this host: what the local backend and a served
/// store's server call (soma/store/cache.hpp has the calls users make).

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include <caf/expected.hpp>

#include "soma/store/cache.hpp"

namespace soma::detail {

class environment;

/// cache_get and cache_put of a store on this host (its local backend).
[[nodiscard]] std::optional<std::string> cache_get_at(const environment& env, std::string_view key,
                                                      const cache_identity& who);
bool cache_put_at(environment& env, std::string_view key, const cache_identity& who,
                  std::string_view output, const std::optional<std::size_t>& limit);

/// Nothing when the cache entry `value` at `key` is sound (its envelope and
/// its message), for `soma check`; else an error_code::damaged error saying
/// what is wrong.
[[nodiscard]] caf::expected<void> check_cache_entry(std::string_view key, std::string_view value);

} // namespace soma::detail
