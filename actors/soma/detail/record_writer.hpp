#pragma once

/// @file
/// The actor that writes a recorder's forwards into the store: a detached
/// actor (LMDB writes block), woken once per batch, not once per fact.

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <caf/actor.hpp>
#include <caf/allowed_unsafe_message_type.hpp>
#include <caf/atom.hpp>
#include <caf/fwd.hpp>

#include "soma/store/backend.hpp"
#include "soma/store/detail/record.hpp"
#include "soma/store/store.hpp"
#include "soma/wire/record_write.hpp"

namespace soma::detail {

/// Forwards to write in one transaction.
struct record_batch {
  std::vector<held_forward> forwards;
  bool closing = false; ///< the recorder's last: once written, the run is marked ended
};

using write_atom = caf::atom_constant<caf::atom("write")>;

/// One run's writing, as its writer holds it: the store's sink, and what
/// could not be written yet (kept, and written with the next batch). What
/// soma's tests call is exported; the rest is the writer's own.
class run_writing {
public:
  /// `recorder` names the writer to a served store's server.
  run_writing(const store& where, const writer_options& options,
              std::uint64_t recorder);
  ~run_writing();

  run_writing(const run_writing&) = delete;
  run_writing& operator=(const run_writing&) = delete;

  /// Writes `batch` (after what is unwritten) in transactions of its own;
  /// the numbers it gave, or why it stopped short.
  record_numbers write(record_batch& batch);

  /// The same write as one part of a group (soma/store/detail/write_group.hpp):
  /// `done` hears what write() would answer. None when the sink cannot
  /// (a served store's): write() it. At most one part at a time.
  [[nodiscard]] std::unique_ptr<group_part>
  part(record_batch& batch, std::function<void(record_numbers)> done);

  /// Marks the run left without closing, unless it was closed (a served
  /// store's server, when the client goes).
  void dropped() noexcept;

private:
  void take(record_batch& batch);
  void closed_if(bool closing, const record_numbers& out);

  std::unique_ptr<record_sink> sink_;
  std::vector<held_forward> unwritten_;
  std::vector<std::uint64_t> asked_; ///< the forward ids of the batch being written (once)
  bool once_ = false;                ///< batches may come again (a served store's server)
  bool closed_ = false;              ///< its run was marked ended
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
