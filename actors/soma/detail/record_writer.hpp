#pragma once

/// @file
/// The actor that writes a recorder's forwards into the store: a detached
/// actor (LMDB writes block), woken once per batch, not once per fact.

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <caf/actor.hpp>
#include <caf/allowed_unsafe_message_type.hpp>
#include <caf/atom.hpp>
#include <caf/fwd.hpp>

#include "soma/store/detail/record.hpp"
#include "soma/wire/record_write.hpp"
#include "soma/store/store.hpp"

namespace soma::detail {

/// Forwards to write in one transaction.
struct record_batch {
  std::vector<held_forward> forwards;
  bool closing = false; ///< the recorder's last: once written, the run is marked ended
};

using write_atom = caf::atom_constant<caf::atom("write")>;

/// Spawns the writer of one run: it answers `(write_atom, record_batch)`
/// with the numbers it gave, after transactions of at most `batch` forwards
/// committed; on failure it keeps what it could not write, says why, and
/// writes it with the next batch.
caf::actor spawn_record_writer(caf::actor_system& sys, store where, writer_options options);

} // namespace soma::detail

namespace caf {

// Both stay in their process: a recorder and its writer are one process.
template <>
struct allowed_unsafe_message_type<soma::detail::record_batch> : std::true_type {};
template <>
struct allowed_unsafe_message_type<soma::detail::record_numbers> : std::true_type {};

} // namespace caf
