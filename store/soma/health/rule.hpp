#pragma once

/// @file
/// soma::health::rule: how a health rule is made. Ten ship with soma
/// (soma/health/rulebook.hpp, docs/health.md); a rule of your own derives
/// from this class and joins a rulebook with rulebook::add.
///
/// A rule says what it looks at (needs), its settings with their defaults,
/// and judges the evidence one read of the store gathered: it appends an
/// opinion for each subject whose condition holds, pending or firing.

#include <cstdint>
#include <climits>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "soma/export.hpp"
#include "soma/health/opinion.hpp"
#include "soma/reading.hpp"
#include "soma/store/tails.hpp"
#include "soma/trials/rows.hpp"

SOMA_API_BEGIN

namespace soma::health {

/// Microseconds from a count of them in a double (a threshold times an
/// interval, seconds times 1e6), clamped to what an int64 holds: times come
/// from writers, and no writer's number may overflow a judgement.
[[nodiscard]] inline std::int64_t clamp_us(double us) noexcept {
  constexpr double most = 9.0e18;
  return us >= most ? static_cast<std::int64_t>(most)
         : us <= -most ? -static_cast<std::int64_t>(most)
         : us == us ? static_cast<std::int64_t>(us) : 0;
}

/// a + b and a - b, saturating instead of overflowing.
[[nodiscard]] inline std::int64_t add_us(std::int64_t a, std::int64_t b) noexcept {
  std::int64_t out = 0;
  return __builtin_add_overflow(a, b, &out) ? (b > 0 ? INT64_MAX : INT64_MIN) : out;
}
[[nodiscard]] inline std::int64_t sub_us(std::int64_t a, std::int64_t b) noexcept {
  std::int64_t out = 0;
  return __builtin_sub_overflow(a, b, &out) ? (b < 0 ? INT64_MAX : INT64_MIN) : out;
}

/// Unix seconds (a record's `when`) as microseconds, saturating.
[[nodiscard]] inline std::int64_t us_of_s(std::int64_t s) noexcept {
  std::int64_t out = 0;
  return __builtin_mul_overflow(s, 1'000'000, &out) ? (s > 0 ? INT64_MAX : INT64_MIN) : out;
}

/// One number a rule can be told, with its default and what it means.
/// Every rule has `over` (its threshold), `for` (seconds a condition is
/// pending before it fires) and `enabled` (1 or 0).
struct setting {
  std::string name;
  double value = 0;
  std::string means;
};

/// A rule's settings as given: its defaults, then a rules file, then the API.
class settings {
public:
  settings() = default;
  explicit settings(std::vector<setting> all) : all_(std::move(all)) {}

  /// The value of `name`; throws std::out_of_range naming it when the rule
  /// has no such setting.
  [[nodiscard]] double operator[](std::string_view name) const;

  /// The condition's threshold, `for` in microseconds, and whether it is on.
  [[nodiscard]] double over() const { return (*this)["over"]; }
  [[nodiscard]] std::int64_t for_us() const {
    return clamp_us((*this)["for"] * 1e6);
  }
  [[nodiscard]] bool enabled() const { return (*this)["enabled"] != 0; }

  /// Sets `name`; false when the rule has no such setting.
  bool set(std::string_view name, double value);

  [[nodiscard]] const std::vector<setting>& all() const noexcept { return all_; }

private:
  std::vector<setting> all_;
};

/// What one read of a store gathered, as of one moment.
struct evidence {
  /// The moment judged: the newest write of any writer at or before `at`
  /// (a machine's reading, a run's forward), unix microseconds by that
  /// writer's clock. Writer against writer, never the reader's clock.
  std::int64_t now_us = 0;
  /// The newest reading of any machine, the clock machines are held
  /// against; 0 without readings.
  std::int64_t newest_reading_us = 0;
  /// The moment asked for (`--at`), unix microseconds; none for "now".
  std::optional<std::int64_t> at_us;
  /// This reader's clock: the moment asked for, else now (unix µs). Only
  /// silent_store holds a writer's clock against it.
  std::int64_t reader_us = 0;
  /// Each machine's readings at or before the moment, newest first: as many
  /// as the rules asked for (rule::more_readings), at least the latest.
  std::map<std::string, std::vector<reading>> machines;
  /// Each run's last forwards at or before the moment (as many as the rules
  /// asked for, with fact blobs if any rule asked).
  std::vector<run_tail> runs;
  /// Each study's trials as the store holds them now (rules read their
  /// attempts' times to see them as of the moment).
  std::map<std::string, std::vector<trial_row>> trials;

  /// Only in a replay (soma/health/replay.hpp), which moves one evidence
  /// forward step by step: for each of `runs`, a number that changes
  /// whenever that run's tail does, so a rule may keep what it worked out of
  /// a tail (in `kept`) until it changes. Empty in a judgement.
  std::vector<std::uint64_t> tail_stamps;
  /// Where a rule keeps such work, under its name, for as long as the
  /// replay's evidence lives (one replay, one thread).
  mutable std::map<std::string, std::shared_ptr<void>, std::less<>> kept;
};

/// What a rule's opinions change with, so that a replay
/// (soma/health/replay.hpp) judges it again only when that did. `anything`,
/// the default, judges it at every step: always exact. The others are a
/// promise the rule makes; a replay that trusts a broken one differs from
/// judge() at the steps it skipped.
enum class changes_with {
  /// Anything, the moment itself too (at_us, reader_us).
  anything,
  /// The machines' readings alone (machines, newest_reading_us).
  readings,
  /// What was written (machines, newest_reading_us, runs, now_us), never the
  /// moment itself: nothing changes between two writes.
  writes,
  /// Each run's tail alone: its opinions about a run are those it gives of
  /// evidence whose runs are that one alone, their state held against now_us
  /// (hold), and a run whose tail did not change keeps them.
  its_run,
};

/// What a rule needs read.
struct needs {
  std::size_t forwards = 0; ///< of each run's last forwards
  std::size_t facts = 0;    ///< the fact blobs of its last this many
  bool trials = false;      ///< every study's trials
};

class rule {
public:
  virtual ~rule() = default;

  /// Its name: lower case, digits and '_' (a rules file's section).
  [[nodiscard]] virtual std::string name() const = 0;

  /// What it looks at, in a few words ("readings", "records", "fact blobs", "trials").
  [[nodiscard]] virtual std::string looks_at() const = 0;

  /// What its condition is, one sentence, for `soma health --list` and the docs.
  [[nodiscard]] virtual std::string condition() const = 0;

  /// Its settings and their defaults: over, for and enabled, then its own.
  [[nodiscard]] virtual std::vector<setting> defaults() const = 0;

  /// What it needs read, given its settings.
  [[nodiscard]] virtual health::needs needs(const settings& s) const { return {}; }

  /// Whether it needs a reading older than those of `newest_first` (one
  /// machine's, newest first, at or before the moment). The walk back stops
  /// when no rule does.
  [[nodiscard]] virtual bool more_readings(const std::vector<reading>& newest_first,
                                           const settings& s) const {
    return false;
  }

  /// What its opinions change with (see changes_with), given its settings.
  [[nodiscard]] virtual health::changes_with changes(const settings& s) const {
    return health::changes_with::anything;
  }

  /// Appends an opinion for each subject whose condition holds.
  virtual void judge(const evidence& e, const settings& s, std::vector<opinion>& out) const = 0;
};

/// The state of a condition that began at `since_us` when it is `now_us`:
/// pending until it has held for `for_us`, then firing.
[[nodiscard]] inline status state_of(std::int64_t since_us, std::int64_t now_us,
                                     std::int64_t for_us) noexcept {
  return sub_us(now_us, since_us) >= for_us ? status::firing : status::pending;
}

/// Appends `o` to `out`, held for the rule's `for` (settings) and judged at
/// `now_us` by the clock its subject is held to: pending until its condition,
/// begun at o.since_us, has held that long, then firing. Every rule's last
/// step, so that no two rules time `for` apart.
inline void hold(std::vector<opinion>& out, opinion o, const settings& s, std::int64_t now_us) {
  o.for_us = s.for_us();
  o.state = state_of(o.since_us, now_us, o.for_us);
  out.push_back(std::move(o));
}

} // namespace soma::health

SOMA_API_END
