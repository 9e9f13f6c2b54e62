#pragma once

/// @file
/// A slice and its answer as bytes (schema/remote.capnp Slice, SliceResult):
/// what a client and a worker say about a trip. The value a trip carries is
/// not in them: it travels beside them in the same message, as the codec
/// wrote it, so its bytes are never copied into another wrapper.

#include <string>
#include <string_view>
#include <vector>

#include "soma/export.hpp"
#include "soma/fact.hpp"

namespace soma::wire {

/// One node of a slice, as the client sends it.
struct slice_node {
  std::string type;       ///< its C++ type: its name in the node library
  std::string name;       ///< the graph's name for it
  std::string definition; ///< SHA-256 of the node library defining it
  std::string library;    ///< that library's path (shipped in mode::network)
  std::string state;      ///< the node's fields, encoded by its codec; empty: it has none
};

/// The slice's header: its nodes. Encoded once per slice, sent with every trip.
[[nodiscard]] SOMA_API_EXPORT std::string encode_slice(const std::vector<slice_node>& nodes);

/// Throws detail::undecodable when the bytes are not a Slice (or one with
/// no nodes).
[[nodiscard]] std::vector<slice_node> decode_slice(std::string_view bytes);

/// Why a slice did not give a value (schema/remote.capnp Refusal).
enum class refusal { none, node_failed, unknown_node, needs_code, conflict, bad_slice };

/// What a worker answers about a slice; the output travels beside it.
struct slice_answer {
  std::vector<fact> facts; ///< everything that happened over there, in order
  refusal refused = refusal::none;
  std::string node;        ///< the graph's name of the node concerned
  std::string error;       ///< what went wrong, in words
  std::vector<std::string> missing; ///< needs_code: the definitions (hashes) to ship
  /// When the worker's session took the slice, unix µs by the worker's
  /// clock; 0 from a worker older than this field.
  std::int64_t taken_us = 0;
  /// How long the worker held it, µs: from taking it to this answer.
  std::int64_t held_us = 0;
};

[[nodiscard]] SOMA_API_EXPORT std::string encode_slice_answer(const slice_answer& a);

/// Whether decode_slice_answer reads the answer's facts: skipped for a
/// forward nobody watches (forward_state::heard), whose facts are not said.
/// Skipped facts are not checked either: an answer whose facts do not
/// decode breaks a watched forward (it cannot say them) and not an
/// unwatched one, whose output and refusal are read and checked as ever.
enum class answer_facts : bool { skip, read };

/// Throws detail::undecodable when the bytes are not a SliceResult.
[[nodiscard]] SOMA_API_EXPORT slice_answer decode_slice_answer(std::string_view bytes,
                                                               answer_facts facts = answer_facts::read);

} // namespace soma::wire
