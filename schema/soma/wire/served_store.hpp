#pragma once

/// @file
/// What a client and the server of a served store say besides records and
/// readings (schema/remote.capnp): a reader's copy in bounded parts, the
/// server's version, and the cache.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace soma::wire {

/// The most bytes of a copy one part carries.
inline constexpr std::size_t snapshot_part_bytes = std::size_t{4} << 20;

struct snapshot_part {
  std::uint64_t txn = 0;
  std::uint64_t size = 0;
  std::uint64_t offset = 0;
  std::string bytes;
};

[[nodiscard]] std::string encode_snapshot_ask(std::uint64_t offset);
[[nodiscard]] std::uint64_t decode_snapshot_ask(std::string_view bytes);
[[nodiscard]] std::string encode_snapshot_part(const snapshot_part& p);
[[nodiscard]] snapshot_part decode_snapshot_part(std::string_view bytes);

[[nodiscard]] std::string encode_store_version(std::uint64_t txn);
[[nodiscard]] std::uint64_t decode_store_version(std::string_view bytes);

struct cache_ask {
  std::string key, type, node, version;
};

struct cache_keep {
  cache_ask ask;
  std::string output;
  std::optional<std::size_t> limit;
};

[[nodiscard]] std::string encode_cache_ask(const cache_ask& a);
[[nodiscard]] cache_ask decode_cache_ask(std::string_view bytes);
/// The answer to a cache_ask: the output, or none.
[[nodiscard]] std::string
encode_cache_answer(const std::optional<std::string>& output);
[[nodiscard]] std::optional<std::string>
decode_cache_answer(std::string_view bytes);
[[nodiscard]] std::string encode_cache_keep(const cache_keep& k);
[[nodiscard]] cache_keep decode_cache_keep(std::string_view bytes);
[[nodiscard]] std::string encode_cache_kept(bool kept);
[[nodiscard]] bool decode_cache_kept(std::string_view bytes);

// Every decode_* throws detail::undecodable when the bytes are not its message.

} // namespace soma::wire
