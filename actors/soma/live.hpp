#pragma once

/// @file
/// soma::live: a watcher actor that tallies every fact it is told and draws
/// the same figure as soma::draw::progress, at any moment.

#include <cstddef>
#include <memory>
#include <optional>
#include <string>

#include <caf/actor.hpp>
#include <caf/fwd.hpp>

#include "soma/draw/figure.hpp"
#include "soma/draw/tally.hpp"
#include "soma/export.hpp"
#include "soma/fact.hpp"
#include "soma/watching.hpp"

SOMA_API_BEGIN

namespace soma {

/// How a live view tallies and draws.
struct live_options {
  /// What its figure calls the run.
  std::string run = "live";
  /// The series it draws: a fact ("loss", its "value") or "fact.field".
  std::string fact = "loss";
  /// The most values of the series it keeps (see draw::tally): 65,536
  /// values take 1 MiB, whatever the run's length.
  std::size_t bound = 1 << 16;
  /// The rolling mean's window; draw::default_window when not given.
  std::optional<std::size_t> window;
};

/// A watcher that tallies facts as they happen (draw::tally: counts, node
/// times and the series of one fact) and draws them with the very function
/// progress draws a store with: a fact read back is the fact a watcher was
/// told, so live's figure and `progress(store, run)` of a recorder told the
/// same facts are the same figure.
///
/// Subscribe it with `{.watching = live}` (it is forward-aware, so it numbers
/// forwards as a recorder does even when they overlap) and tell it your own
/// facts with `live.tell(...)`; a told fact joins the forward that began
/// last. Handling a fact costs well under a microsecond (benchmarks/draw).
/// Owns its actor; move-only; any thread may call its members.
class live {
public:
  /// Spawns its actor in `sys`. Throws std::invalid_argument for a bound
  /// below 2.
  live(caf::actor_system& sys, live_options options = {});

  live(live&&) noexcept = default;
  live& operator=(live&& other) noexcept;
  live(const live&) = delete;
  live& operator=(const live&) = delete;

  /// Stops the actor.
  ~live();

  /// Tells it a fact of a level above the engine (a loss).
  void tell(fact x) const;

  /// The figure of everything told before this call (it waits until the
  /// actor has tallied that much): draw::progress of the series. Throws
  /// std::invalid_argument while no forward told the fact yet.
  [[nodiscard]] draw::figure figure() const;

  /// A copy of the tally as of everything told before this call.
  [[nodiscard]] draw::tally snapshot() const;

  /// As a watcher: told each fact with the forward it belongs to.
  operator watcher() const { return watcher::forward_aware(actor_); }

  /// The actor: it handles `soma::fact` and `soma::forward_fact`.
  [[nodiscard]] const caf::actor& actor() const noexcept { return actor_; }

private:
  struct shared;
  void stop() noexcept;
  caf::actor_system* sys_ = nullptr;
  caf::actor actor_;
  std::shared_ptr<shared> shared_;
  live_options options_;
};

} // namespace soma

SOMA_API_END
