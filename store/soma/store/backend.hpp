#pragma once

/// @file
/// What a soma::store is underneath: a backend. A store in a directory of
/// this host is a local backend (store/soma/store/local.hpp); one served by
/// a soma-node on another host (`soma://host:port`) is a served backend,
/// made where CAF's network layer is (actors/soma/remote/served_store.hpp).
/// Readers and writers go through this interface and never ask which.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <caf/expected.hpp>

#include "soma/reading.hpp"
#include "soma/store/answers.hpp"
#include "soma/trials/rows.hpp"
#include "soma/wire/record_write.hpp"

namespace soma::detail {

class environment;
class group_part;
struct cache_identity;

/// Where one recorder's forwards are written.
class record_sink {
public:
  virtual ~record_sink() = default;

  /// Writes the forwards of `unwritten` in order, in transactions of at most
  /// the writer's `batch`, and erases those written. `asked`: the ids of the
  /// batch being written (for a writer whose batches may come again). Says
  /// why it stopped short in the answer's `error`; what it could not write
  /// stays in `unwritten`. Never throws for the store's sake. `closing`:
  /// the recorder's last batch; once all of it is written, the run is
  /// marked ended (run_meta::ended_us).
  virtual record_numbers write(std::vector<held_forward>& unwritten,
                               const std::vector<std::uint64_t>& asked, bool closing) = 0;

  /// write(), as one part of a group written in one transaction
  /// (soma/store/detail/write_group.hpp; what a served store's server does
  /// with the batches of all its clients): all of `unwritten`, and with
  /// `closing` the run marked ended, in the group's transaction. When the
  /// group is done, `done` hears what write() would have answered, and
  /// `unwritten` is as write() would have left it; both must outlive the
  /// part. None from a sink that cannot (a served one): call write().
  [[nodiscard]] virtual std::unique_ptr<group_part>
  part(std::vector<held_forward>& unwritten, const std::vector<std::uint64_t>& asked,
       bool closing, std::function<void(record_numbers)> done);

  /// Marks the run as left without closing by the writer's client
  /// (run_meta::dropped_us): what a served store's server does when a
  /// client goes before its last batch. Never throws (said on stderr).
  virtual void dropped() noexcept {}
};

/// A store's backend. Thread-safe; shared by every copy of a store handle.
class backend {
public:
  virtual ~backend() = default;

  /// The directory, or `soma://host:port`.
  [[nodiscard]] virtual const std::string& path() const noexcept = 0;

  /// Whether it may only be read.
  [[nodiscard]] virtual bool read_only() const noexcept = 0;

  /// The environment on this host, for code that reads or writes it
  /// directly; none for a served store.
  [[nodiscard]] virtual std::shared_ptr<environment> local() noexcept = 0;

  /// Readers' questions (soma/store/answers.hpp says each), answered from
  /// one short read transaction where the store is: the local backend reads
  /// its environment; a served store asks its server, so only the answer
  /// crosses the wire. Every one throws store_error.
  [[nodiscard]] virtual answers& ask() noexcept = 0;

  /// A sink for one recorder's forwards of one run.
  [[nodiscard]] virtual std::unique_ptr<record_sink> records(const writer_options& options,
                                                             std::uint64_t recorder) = 0;

  /// Writes a machine reading durably and applies the retention rules.
  /// Throws store_error.
  virtual void put_reading(const soma::reading& r) = 0;

  /// The kept output under `key`, or nullopt (none, damaged, or another
  /// identity's). Throws store_error when it cannot be asked.
  [[nodiscard]] virtual std::optional<std::string> cache_get(std::string_view key,
                                                             const cache_identity& who) = 0;

  /// Keeps `output` under `key`, within `limit` when given. Throws store_error.
  virtual bool cache_put(std::string_view key, const cache_identity& who, std::string_view output,
                         const std::optional<std::size_t>& limit) = 0;

  /// The trials calls of soma/store/trials.hpp, each one write transaction
  /// where the store is. Throw store_error (no_study_error for a study that
  /// is not there).
  virtual std::vector<std::uint64_t> add_trials(std::string_view study,
                                                const std::vector<values>& trials,
                                                std::string_view function) = 0;
  [[nodiscard]] virtual std::optional<trial_row> claim_trial(std::string_view study,
                                                             std::string_view claimant,
                                                             std::chrono::milliseconds wait) = 0;
  /// Nothing when kept; else an error_code::refused error saying why not.
  [[nodiscard]] virtual caf::expected<void>
  end_trial(std::string_view study, std::uint64_t number, std::uint32_t attempt,
            std::string_view claimant, trial_state state, const values& result,
            const std::string& error) = 0;
  virtual std::vector<std::uint64_t> reclaim(std::string_view study, double quiet_over_s) = 0;
  /// end_trial's answer, and the trial then claimed for the same claimant
  /// (claimed even when the end was refused).
  [[nodiscard]] virtual std::pair<caf::expected<void>, std::optional<trial_row>>
  end_and_claim(std::string_view study, std::uint64_t number, std::uint32_t attempt,
                std::string_view claimant, trial_state state, const values& result,
                const std::string& error) = 0;

  /// Writes a compacted copy of the whole store into the directory `dir`,
  /// which must exist and be empty; for a served store, fetched from its
  /// server in parts of at most 4 MiB. Throws store_error.
  virtual void copy_to(const std::string& dir) = 0;

  /// Forces what this process committed onto the disk; nothing for a served
  /// store (its server syncs). Throws store_error.
  virtual void sync() = 0;
};

} // namespace soma::detail
