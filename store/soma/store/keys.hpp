#pragma once

/// @file
/// How runs and forwards are keyed in a store: `run/<id>/` then the forward
/// number as 8 big-endian bytes, so keys sort numerically (forward 10 after
/// forward 9) and a run is one prefix scan. docs/formats.md has the layout.

#include <cstdint>
#include <string>
#include <string_view>

#include <caf/expected.hpp>

#include "soma/error.hpp"
#include "soma/export.hpp"

SOMA_API_BEGIN

namespace soma {

/// The longest run id, in bytes: LMDB keys hold at most 511 bytes and a
/// record key adds 13 to the id.
inline constexpr std::size_t max_run_id = 498;

/// Nothing when `run` can name a run; else an error_code::invalid error
/// whose describe() is a sentence naming it and what to do (empty, a '/', a
/// control character, not UTF-8, longer than max_run_id bytes).
[[nodiscard]] caf::expected<void> check_run_id(std::string_view run);

namespace detail {

/// `run/<id>/`: the prefix of every key of one run.
[[nodiscard]] SOMA_API_LOCAL std::string run_prefix(std::string_view run);

/// `run/<id>/` + n as 8 big-endian bytes.
[[nodiscard]] SOMA_API_LOCAL std::string record_key(std::string_view run, std::uint64_t n);

/// A record key taken apart; false when `key` is not one.
[[nodiscard]] SOMA_API_LOCAL bool parse_record_key(std::string_view key, std::string_view& run,
                                                   std::uint64_t& n);

/// `run/<id>`: where a run's metadata is kept.
[[nodiscard]] SOMA_API_LOCAL std::string meta_key(std::string_view run);

/// The key of a run's words in the meta database: "words/<id>" (format 4).
[[nodiscard]] SOMA_API_LOCAL std::string words_key(std::string_view run);


} // namespace detail

} // namespace soma

SOMA_API_END
