#pragma once

/// @file
/// soma::recorder: a watcher that keeps one record per forward in a store.

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include <caf/actor.hpp>
#include <caf/fwd.hpp>

#include "soma/export.hpp"
#include "soma/fact.hpp"
#include "soma/store/store.hpp"
#include "soma/values.hpp"
#include "soma/watching.hpp"

SOMA_API_BEGIN

namespace soma {

namespace detail {
SOMA_API_HIDDEN_BEGIN
struct recorder_inbox;
SOMA_API_HIDDEN_END
} // namespace detail

/// What a recorder does with a run the store already holds forwards of: a
/// program run again, or a second recorder of the same run id.
enum class existing_run {
  /// Number after them: the run gets another execution, which `soma runs`,
  /// `soma plot`, `soma live` and the page show, with where it began.
  continue_run,
  /// Clear them with the first write, and number from 0.
  overwrite,
  /// Throw store_error when the recorder is made, naming the run's forwards
  /// and who wrote it last.
  refuse,
};

/// How a recorder records.
struct recorder_options {
  /// The run's id: printable, no '/', at most soma::max_run_id bytes.
  std::string run;
  /// Facts whose fields go into the record itself ("loss" puts "loss.value"
  /// there), so reading them back costs one scan instead of a fetch per
  /// forward.
  std::vector<std::string> summarising;
  /// What to do when the store holds forwards of the run already: continue
  /// them as a new execution of the run (the default), overwrite them, or
  /// refuse (docs/recording.md, "Running a program again").
  existing_run existing = existing_run::continue_run;
  /// A forward's record is durable at most this long after its last fact.
  std::chrono::milliseconds durable_within{100};
  /// Forwards written per transaction at most; a write starts when this
  /// many wait. While a write is under way the recorder holds what arrives
  /// meanwhile, so it holds about one batch plus what arrives during a write.
  std::size_t batch = 1000;
  /// What the run was (a learning rate, a seed, a dataset's name), kept
  /// with it: `soma runs` shows them and filters on them, and figures name
  /// the run by them. None given: those the run already has, or else, for a
  /// trial's run, its trial's (and the tag `study:<name>`).
  values params;
  /// Words to find the run by (`soma runs --tag WORD`).
  std::vector<std::string> tags;
};

/// A watcher actor that writes one record per forward at `run/<id>/<n>`:
/// forward, state (ok, broke, open), nodes, took_us, when, and the
/// summarised facts' fields, beside a blob of every fact of that forward.
///
/// Subscribe it with `{.watching = recorder}`; tell it your own facts with
/// `recorder.tell(...)`. A fact told after a forward
/// finished belongs to that forward until the next one begins. Writes are
/// batched; a forward is written once `batch` forwards wait or
/// `durable_within` after it changed (plus the time a write already under
/// way takes), at flush(), and at destruction, which waits until everything
/// told before it began is written. Facts told before any forward join the
/// first forward; facts told with no forward at all are written at close as
/// a forward of their own (state open, no nodes).
///
/// Owns its actor, which runs in the scheduler; its writer, to which it
/// hands whole batches, is a detached actor (LMDB writes block). Move-only.
class recorder {
public:
  /// Throws std::invalid_argument for a run id that cannot be a key, and
  /// store_error for a read-only store, or with existing_run::refuse for a
  /// run the store holds forwards of (checked here, once: two recorders
  /// made at the same moment may both find it empty).
  recorder(caf::actor_system& sys, store s, recorder_options options);

  recorder(recorder&&) noexcept = default;
  recorder& operator=(recorder&&) noexcept;
  recorder(const recorder&) = delete;
  recorder& operator=(const recorder&) = delete;

  /// Writes everything told and stops the actor. Never throws: an error
  /// writing is reported on stderr, since nothing else could hear it.
  ~recorder();

  /// Tells the recorder a fact of a level above the engine; it joins the
  /// forward that began last. Throws std::invalid_argument for a fact named
  /// with one of the engine's words or with a field named "fact" (those are
  /// the engine's to say, as in soma::context::tell).
  void tell(fact x) const;

  /// Blocks until everything told so far is durable in the store. Throws
  /// store_error when writing failed (what was not written is still held
  /// and tried again).
  void flush() const;

  /// The run it records.
  [[nodiscard]] const std::string& run() const noexcept { return run_; }

  /// As a watcher: a sink (soma::watcher::sink) that takes each fact with
  /// the forward it belongs to into the actor's inbox, on the thread that
  /// stamped it, so that a fact costs no message of its own; the actor is
  /// woken once when facts wait and once per batch.
  operator watcher() const;

private:
  void close() noexcept;

  caf::actor_system* sys_ = nullptr;
  caf::actor actor_;
  std::shared_ptr<detail::recorder_inbox> inbox_;
  std::string run_;
};

} // namespace soma

SOMA_API_END
