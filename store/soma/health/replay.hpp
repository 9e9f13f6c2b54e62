#pragma once

/// @file
/// soma::health::replay: a rulebook judged at every step of a past window,
/// and what it held as episodes: when each opinion went pending, when it
/// fired, when it cleared. Exactly as live: at every step an episode is
/// pending or firing as judge(store, rules, {.at_us = step}) says then.
///
/// A replay reads the store once for the whole window (each machine's
/// readings, each run's forwards in it and the last the rules need before
/// it, every study's trials) and moves one evidence forward step by step,
/// judging again only the rules whose evidence changed (rule::changes).
/// compare() replays two rulebooks and says how their episodes differ.

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "soma/export.hpp"
#include "soma/health/rulebook.hpp"
#include "soma/store/store.hpp"

SOMA_API_BEGIN

namespace soma::health {

/// The most steps one replay takes: its window over its step. A step costs
/// time for every rule that must judge it again; memory goes to what the
/// window holds (every forward of every run in it, read once up front) and
/// to the episodes opened.
inline constexpr std::size_t most_replay_steps = 1'000'000;

/// Options a replay cannot take (FROM after TO, a step that is not over 0,
/// more than most_replay_steps steps); the message says what to give instead.
class replay_error : public std::invalid_argument {
public:
  using std::invalid_argument::invalid_argument;
};

struct replay_options {
  std::int64_t from_us = 0;          ///< the first step, unix microseconds
  std::int64_t to_us = 0;            ///< the last step is at or before it
  std::int64_t every_us = 1'000'000; ///< between steps
  /// Only episodes about this run (as judge_options::run); a no_run_error
  /// when the store has no such run.
  std::optional<std::string> run;
};

/// One opinion's time holding: from the first step its condition held to the
/// first step it no longer did.
struct episode {
  std::string rule, kind, subject, run, measure; ///< as the opinion says (opinion.hpp)
  double threshold = 0;     ///< at its first step
  std::string threshold_is; ///< at its first step
  std::int64_t for_us = 0;  ///< the rule's `for`
  std::int64_t since_us = 0;   ///< when the condition began, as the rule said at its first step
  std::int64_t pending_us = 0; ///< its first step (the window's first when it held already then)
  std::optional<std::int64_t> firing_us;  ///< the first step it was firing; none if it never did
  std::optional<std::int64_t> cleared_us; ///< the first step it no longer held; none if it held at the last
  double pending_value = 0; ///< its value at pending_us
  double firing_value = 0;  ///< its value at firing_us
  double last_value = 0;    ///< its value at its last step holding (before cleared_us)
  std::size_t steps = 0;    ///< steps it held
};

/// What a replay found.
struct replayed {
  std::vector<episode> episodes; ///< by pending_us, then rule order, then as judged
  std::int64_t from_us = 0, to_us = 0, every_us = 0;
  std::int64_t last_us = 0;  ///< the last step
  std::size_t steps = 0;     ///< steps judged
  std::size_t machines = 0, runs = 0, trials = 0; ///< looked at, at the last step
};

/// Judges `rules` at from_us, from_us + every_us, ... up to to_us. Throws
/// replay_error for options it cannot take, store_error for a store that
/// cannot be read or is damaged, no_run_error for an unknown run.
[[nodiscard]] replayed replay(const store& s, const rulebook& rules, const replay_options& o);

/// How an episode of one replay differs from the other's.
enum class difference_is {
  only_in_a,       ///< no episode of B about the same subject overlaps it
  only_in_b,
  fired_only_in_a, ///< both held; only A's fired
  fired_only_in_b,
  firing_moved,    ///< both fired, at different steps
};

/// "only in A", "only in B", "fired only in A", "fired only in B", "firing moved".
[[nodiscard]] std::string_view to_string(difference_is x) noexcept;

struct difference {
  difference_is is = difference_is::only_in_a;
  std::optional<episode> a, b; ///< the episodes, the side that has one
  std::int64_t moved_us = 0;   ///< firing_moved: B's firing less A's
};

/// The episodes of two replays over the same window that differ. Episodes
/// pair by rule and subject, each with the first of the other side's that
/// overlaps it in time. Nothing else is compared: two thresholds that hold
/// over the same steps and fire at the same step make no difference.
[[nodiscard]] std::vector<difference> compare(const replayed& a, const replayed& b);

} // namespace soma::health

SOMA_API_END
