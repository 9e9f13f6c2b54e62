#pragma once

/// @file
/// A forward's record and its fact blob as plain values, and their Cap'n
/// Proto encoding (schema/soma.capnp, docs/formats.md).

#include <cstdint>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

#include "soma/fact.hpp"

namespace soma {

/// How a forward ended.
enum class outcome : std::uint8_t {
  ok,    ///< finished with a value
  broke, ///< a node failed
  open   ///< the recorder closed before the forward ended
};

/// "ok", "broke" or "open".
[[nodiscard]] std::string_view to_string(outcome x) noexcept;

/// Writes to_string(x).
std::ostream& operator<<(std::ostream& out, outcome x);

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
/// forward <n> of run '<run>'", or just <what> when `run` is empty. Cheap to
/// make, so readers make one per value without building text.
struct origin {
  std::string_view what;
  std::string_view run = {};
  std::uint64_t n = 0;

  [[nodiscard]] std::string str() const;
};

/// Encodes a record (Cap'n Proto, unpacked, whole words).
[[nodiscard]] std::string encode_record(const record& x);

/// Decodes a record; throws store_error naming `where` when the bytes are
/// not one (truncated, overwritten, not a multiple of 8 bytes).
[[nodiscard]] record decode_record(std::string_view bytes, const origin& where);

/// Encodes the facts of one forward.
[[nodiscard]] std::string encode_facts(const std::vector<fact>& facts);

/// Decodes a fact blob; throws store_error naming `where` when damaged.
[[nodiscard]] std::vector<fact> decode_facts(std::string_view bytes, const origin& where);

/// Encodes / decodes a run's metadata: the fact names it summarises.
[[nodiscard]] std::string encode_run_meta(const std::vector<std::string>& summarising);
[[nodiscard]] std::vector<std::string> decode_run_meta(std::string_view bytes,
                                                       const origin& where);

} // namespace detail

} // namespace soma
