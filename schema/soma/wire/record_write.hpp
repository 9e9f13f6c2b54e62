#pragma once

/// @file
/// A recorder's batches and their numbers, and as bytes for a store written
/// through its server (schema/remote.capnp RecordWrite, RecordNumbers).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <caf/error.hpp>

#include "soma/fact.hpp"
#include "soma/outcome.hpp"
#include "soma/values.hpp"

namespace soma::detail {

/// One forward as the recorder holds it until it is written.
struct held_forward {
  std::uint64_t id = 0; ///< the engine's forward id (0: facts told with no forward)
  std::optional<std::uint64_t> number; ///< its n in the run, once written
  std::vector<fact> facts;
  outcome state = outcome::open;
  std::int64_t took_us = 0;
  std::int64_t when_us = 0; ///< unix microseconds when its first fact was seen
};

/// What a write numbered: (forward id, n) for every forward it wrote, and
/// why it stopped short when it did (what it could not write it keeps, to
/// write with the next batch). A write that stops short has still numbered
/// what it wrote, so the error sits beside the numbers, not instead of them.
struct record_numbers {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> numbered;
  caf::error error; ///< none, or an error_code::store_failed error saying why it stopped
  /// The forwards written, handed back rather than freed on the writer's
  /// thread, which allocates no facts: the recorder reuses their facts and
  /// lists, and frees the rest on a scheduler thread (docs/architecture.md,
  /// "The recorder"). Not on the wire.
  std::vector<held_forward> written;
};

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
  /// What the run was, and words to find it by (recorder_options).
  values params;
  std::vector<std::string> tags;
  /// A served store's client recorder: its machine id (hostname-pid), which
  /// its server keeps as the run's writer's client. Empty: this process.
  std::string client;
};

/// One recorder's batch sent to a served store.
struct record_write {
  std::uint64_t recorder = 0;
  writer_options options;
  std::vector<held_forward> forwards;
  bool closing = false; ///< the recorder's last batch: its run is marked ended once written
};

[[nodiscard]] std::string encode_record_write(const record_write& w);

/// Throws undecodable when the bytes are not a RecordWrite.
[[nodiscard]] record_write decode_record_write(std::string_view bytes);

[[nodiscard]] std::string encode_record_numbers(const record_numbers& n);

/// Throws undecodable when the bytes are not RecordNumbers.
[[nodiscard]] record_numbers decode_record_numbers(std::string_view bytes);

} // namespace soma::detail
