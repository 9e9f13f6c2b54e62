#pragma once

/// @file
/// The cache: outputs of frozen, cached nodes kept in a store, keyed by the
/// node's identity and its encoded input.
///
/// An entry's key is the node's name, a NUL, then the SHA-256 of the node's
/// type, name and frozen version, its fields when its type has a codec
/// (`Scale{3}` and `Scale{2}` keep apart), and the input's bytes: an entry
/// can only ever be recalled for the same node, at the same version and
/// settings, given the same input. An entry that does not decode is a miss (the node runs and the
/// entry is written again); it never fails a forward.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <caf/expected.hpp>

#include "soma/error.hpp"
#include "soma/export.hpp"
#include "soma/store/store.hpp"

SOMA_API_BEGIN

namespace soma {

/// One kept output, as `soma cache ls` lists it.
struct cache_row {
  std::string node;
  std::string type;
  std::string version;
  std::uint64_t bytes = 0; ///< the encoded output's size
  std::int64_t kept_at = 0; ///< unix seconds
};

/// Every kept output, or only those of `node`. One scan of the cache.
[[nodiscard]] std::vector<cache_row> cache_entries(const store& s,
                                                   std::optional<std::string_view> node = {});

/// Forgets every kept output, or only those of `node`; returns how many.
std::size_t cache_clear(store& s, std::optional<std::string_view> node = {});

namespace detail {

/// Who a kept output belongs to.
struct cache_identity {
  std::string_view type;
  std::string_view node;
  std::string_view version;
  std::string_view state = {}; ///< the node's fields encoded by its codec, if it has one
};

/// The key of `who`'s output for the input encoded as `input`.
[[nodiscard]] std::string cache_key(const cache_identity& who, std::string_view input);

/// The kept output under `key` (a copy of its bytes), or nullopt when there
/// is none or it does not decode, or belongs to another identity.
[[nodiscard]] std::optional<std::string> cache_get(const store& s, std::string_view key,
                                                   const cache_identity& who);

/// Keeps `output` under `key`. When the store handle has a cache limit,
/// evicts the oldest entries until the cache fits; an output larger than the
/// limit is not kept (returns false). Throws store_error.
SOMA_API_LOCAL bool cache_put(const store& s, std::string_view key, const cache_identity& who,
                              std::string_view output);

} // namespace detail

} // namespace soma

SOMA_API_END
