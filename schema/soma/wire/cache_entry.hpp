#pragma once

/// @file
/// A kept output as bytes (schema/cache.capnp CacheEntry): what a store
/// keeps inside a cache entry's envelope, after its 8-byte stamp.

#include <cstdint>
#include <string>
#include <string_view>

namespace soma::wire {

/// One kept output and whose it is.
struct cache_entry {
  std::string node, type, version, output;
  std::int64_t kept_at = 0;  ///< unix seconds
  std::uint64_t kept_ns = 0; ///< the writer's nanoseconds: its place in the age index
};

/// The entry's message for `output` kept by node `node` (`type`, frozen at
/// `version`), appended to `out`: the output's bytes are copied once.
void encode_cache_entry(std::string& out, std::string_view node,
                        std::string_view type, std::string_view version,
                        std::string_view output, std::int64_t kept_at,
                        std::uint64_t kept_ns);

/// The entry in `bytes`, read in place when they sit on an 8-byte boundary.
/// Throws detail::undecodable when they are not a CacheEntry.
[[nodiscard]] cache_entry decode_cache_entry(std::string_view bytes);

} // namespace soma::wire
