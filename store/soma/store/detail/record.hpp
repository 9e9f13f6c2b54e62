#pragma once

/// @file
/// A forward's record, its fact blob, its run's metadata and its run's words
/// as the store keeps them: sealed, and encoded as
/// schema/soma/detail/packed.hpp says (docs/formats.md); older formats read.

#include <cstdint>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

#include <optional>

#include "soma/detail/run_words.hpp"
#include "soma/detail/seal.hpp"
#include "soma/fact.hpp"
#include "soma/outcome.hpp"
#include "soma/record.hpp"

namespace soma {

namespace detail {

/// Where bytes came from, said only when they turn out damaged: "<what> of
/// forward <n> of run '<run>' in the store '<store>'" (the parts that are
/// set). Cheap to make, so readers make one per value without building text.
struct origin {
  std::string_view what;
  std::string_view run = {};
  std::uint64_t n = 0;
  std::string_view store = {};

  [[nodiscard]] std::string str() const;
};

/// Throws store_error: the value `where` names is damaged, as `why` says.
[[noreturn]] void damaged_value(const origin& where, std::string_view why);

/// Encodes a record stored at `key` (format 3: sealed, packed Cap'n Proto).
[[nodiscard]] std::string encode_record(const record& x, std::string_view key);

/// Appends the encoding of `x` at `key` to `out`.
void encode_record_into(std::string& out, const record& x, std::string_view key);

/// Decodes the record stored at `key` (format 3, 2: compact, or 1); throws
/// store_error naming `where` when the bytes are damaged.
[[nodiscard]] record decode_record(std::string_view key, std::string_view bytes,
                                   const origin& where);

/// The summary field `name` of the record stored at `key`, without making
/// the rest of it; nullopt when the record has none. When `when_us` is
/// given, the record's when_us goes there. Throws store_error as
/// decode_record does.
[[nodiscard]] std::optional<scalar>
summary_field(std::string_view key, std::string_view bytes, const origin& where,
              std::string_view name, std::int64_t* when_us = nullptr);

/// Encodes the facts of one forward stored at `key`.
[[nodiscard]] std::string encode_facts(const std::vector<fact>& facts,
                                       std::string_view key);

/// Appends the encoding of `facts` at `key` to `out`.
void encode_facts_into(std::string& out, const std::vector<fact>& facts, std::string_view key);

/// Format 4: appends the encoding of `facts` at `key` to `out`, naming the
/// texts that the run's `words` number (and adding new ones to them).
void encode_facts_into(std::string& out, const std::vector<fact>& facts,
                       std::string_view key, run_words& words);

/// Decodes a fact blob stored at `key`, `words` its run's (words_of:
/// needed for format 4); throws store_error naming `where` when damaged,
/// and when it names a word `words` do not hold.
[[nodiscard]] std::vector<fact> decode_facts(std::string_view key,
                                             std::string_view bytes,
                                             const origin& where,
                                             const run_words* words = nullptr);

/// Encodes / decodes a run's words stored at `key` (format 4).
[[nodiscard]] std::string encode_run_words(const run_words& words,
                                           std::string_view key);
[[nodiscard]] run_words decode_run_words(std::string_view key,
                                         std::string_view bytes,
                                         const origin& where);

/// Encodes / decodes a run's metadata stored at `key`.
[[nodiscard]] std::string encode_run_meta(const run_meta& meta, std::string_view key);
[[nodiscard]] run_meta decode_run_meta(std::string_view key, std::string_view bytes,
                                       const origin& where);

/// The payload of the sealed value `bytes` at `key` (seal.hpp), or all of
/// `bytes` for a value of format 1; the format it is in. Throws store_error
/// naming `where` for a checksum that does not match, a value of another
/// kind, or a newer format.
int open_sealed(std::string_view key, std::string_view bytes, sealed_kind kind,
                const origin& where, std::string_view& payload);

} // namespace detail

} // namespace soma
