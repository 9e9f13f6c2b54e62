#pragma once

/// @file
/// A forward's record and its fact blob as plain values, and their Cap'n
/// Proto encoding (schema/soma.capnp, docs/formats.md).

#include <cstdint>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

#include <optional>

#include "soma/detail/seal.hpp"
#include "soma/fact.hpp"
#include "soma/outcome.hpp"

namespace soma {

/// The small record kept per forward.
struct record {
  std::uint64_t forward = 0; ///< n within the run, from 0
  outcome state = outcome::open;
  std::uint32_t nodes = 0;   ///< distinct nodes that ran, failed or were recalled
  std::int64_t took_us = 0;  ///< the forward's took_us
  std::int64_t when = 0;     ///< unix seconds when its first fact was seen
  std::vector<field> summary; ///< summarised facts' fields, e.g. {"loss.value", "2.1"}

  friend bool operator==(const record&, const record&) = default;
};

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

/// A run summed up as its writer keeps it beside its records: what
/// soma::run_row says of the run, counted as detail::count_forward counts
/// (readers.hpp), over every record the run holds.
struct run_totals {
  std::uint64_t forwards = 0; ///< records the run holds
  std::uint64_t broke = 0;    ///< of them, broke
  std::int64_t took_us = 0;   ///< their took_us, added
  std::int64_t first = 0;     ///< the least `when` of them (0 with no forward)
  std::int64_t last = 0;      ///< the greatest `when` of them (0 with no forward)

  friend bool operator==(const run_totals&, const run_totals&) = default;
};

/// A run's metadata (meta/run/<id>).
struct run_meta {
  /// The fact names every record of the run summarises.
  std::vector<std::string> summarising;
  /// The number after the last forward written: a run's forwards are
  /// 0 .. next - 1, so a missing one shows. None in stores of format 1.
  std::optional<std::uint64_t> next;
  /// When the run's recorder closed, unix microseconds by its clock: its
  /// last batch was written. None while a recorder writes it, for a run
  /// whose recorder's process died, and in stores written before soma
  /// marked it. A later recorder of the run clears it.
  std::optional<std::int64_t> ended_us;
  /// The run summed up, kept by its writer in the transaction that writes
  /// its records, so that listing runs reads no record. None in runs an
  /// older soma wrote last (readers count their records instead).
  std::optional<run_totals> totals;
};

/// Encodes a record stored at `key` (format 2: sealed, compact).
[[nodiscard]] std::string encode_record(const record& x, std::string_view key);

/// Appends the encoding of `x` at `key` to `out`.
void encode_record_into(std::string& out, const record& x, std::string_view key);

/// Decodes the record stored at `key` (format 2, or 1: Cap'n Proto); throws
/// store_error naming `where` when the bytes are damaged.
[[nodiscard]] record decode_record(std::string_view key, std::string_view bytes,
                                   const origin& where);

/// One summarised field of a record, as a curve reads it: the number it was
/// kept as, or its text.
struct summary_value {
  std::optional<double> number;
  std::string text;
};

/// The summary field `name` of the record stored at `key`, without decoding
/// the rest of it; nullopt when the record has none. Throws store_error as
/// decode_record does.
[[nodiscard]] std::optional<summary_value> summary_field(std::string_view key,
                                                         std::string_view bytes,
                                                         const origin& where,
                                                         std::string_view name);

/// Encodes the facts of one forward stored at `key`.
[[nodiscard]] std::string encode_facts(const std::vector<fact>& facts, std::string_view key);

/// Appends the encoding of `facts` at `key` to `out`.
void encode_facts_into(std::string& out, const std::vector<fact>& facts, std::string_view key);

/// Decodes a fact blob stored at `key`; throws store_error naming `where`
/// when damaged.
[[nodiscard]] std::vector<fact> decode_facts(std::string_view key, std::string_view bytes,
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
