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

#include "soma/fact.hpp"
#include "soma/store/record.hpp"
#include "soma/store/store.hpp"

namespace soma::detail {

/// One forward as the recorder holds it until it is written.
struct held_forward {
  std::uint64_t id = 0; ///< the engine's forward id (0: facts told with no forward)
  std::optional<std::uint64_t> number; ///< its n in the run, once written
  std::vector<fact> facts;
  outcome state = outcome::open;
  std::int64_t took_us = 0;
  std::int64_t when = 0;
};

/// Forwards to write in one transaction.
struct record_batch {
  std::vector<held_forward> forwards;
};

/// What a write numbered: (forward id, n) for every forward it wrote, and
/// why it stopped short when it did (what it could not write it keeps, to
/// write with the next batch).
struct record_numbers {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> numbered;
  std::optional<std::string> error;
};

using write_atom = caf::atom_constant<caf::atom("write")>;

/// What the writer needs to know of its run.
struct writer_options {
  std::string run;
  std::vector<std::string> summarising;
  bool overwrite = false;
  std::size_t batch = 1000; ///< forwards per transaction at most
  /// Nonzero on a served store's server: the client recorder whose batches
  /// this writer takes. A batch sent again because its answer was lost is
  /// then written exactly once: each transaction also keeps, under
  /// `batch/<recorder>` in the meta database, the numbers it gave the
  /// forwards of the batch, and a forward arriving again gets its number
  /// back instead of a new one (docs/formats.md).
  std::uint64_t once_for = 0;
};

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
