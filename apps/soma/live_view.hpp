#pragma once

/// @file
/// `soma live`'s view: what a terminal view of a run shows (read from the
/// store as another process records, only what is new on each frame),
/// drawn as lines of text that fit the terminal. commands/live.hpp is the
/// loop that redraws it in place.

#include <cstddef>
#include <cstdint>
#include <deque>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "value_columns.hpp"
#include "soma/store/readers.hpp"
#include "soma/store/standing.hpp"
#include "soma/store/store.hpp"

namespace soma::cli {

/// One moment of a run, as the view shows it.
struct view {
  std::string run;
  std::string fact;
  bool found = false;             ///< whether the run is in the store yet
  std::uint64_t forwards = 0;
  std::uint64_t ok = 0, broke = 0, open = 0;
  std::optional<double> last;     ///< the fact's value in the latest forward that told it
  std::uint64_t told = 0;         ///< how many forwards told the fact
  std::uint64_t valued = 0;       ///< forwards whose value was read (told or not): all but
                                  ///< while a run whose fact is not summarised is caught up on
  value_columns values;           ///< the fact over the whole run, min and max per column
  double rate = 0;                ///< forwards a second over the last rate_seconds whole seconds
  std::optional<std::int64_t> elapsed_s;  ///< since the run's first forward began
  std::optional<std::int64_t> quiet_s;    ///< set once no forward came for long (quiet_after)
  run_status status = run_status::unknown; ///< where the run stands (soma/store/run_status.hpp)
  std::string how;                ///< how that is known
  /// Who wrote the run, one after another: more than one when a program
  /// recorded it again (soma::execution; empty for an older soma's run).
  std::vector<execution> executions;
  std::int64_t last_when = 0;     ///< unix seconds the latest forward began
  std::int64_t now = 0;           ///< unix seconds the view was read
  std::vector<node_row> slowest;  ///< nodes by mean time, slowest first (last 100 forwards)
  /// The shipped health rules' firing opinions about the run, its machines
  /// and its trial (soma/health/), each as rule, subject, value over threshold.
  std::vector<std::string> opinions;
  /// The machines the run's forwards went to (their `machine` facts) that
  /// have readings in the store: "w1 alpha-101" and whether it still
  /// reports (soma::quietness, judged against this clock), by host.
  std::vector<std::pair<std::string, machine_state>> machines;
};

/// The seconds the view's rate is measured over.
inline constexpr std::int64_t rate_seconds = 5;

/// Follows one run from frame to frame, reading only what is new: each
/// read() asks for the forwards after the last it read (a seek), again for
/// the latest and the still-open ones (a recorder rewrites those), and
/// fetches facts only for new forwards in the last 100 (the nodes) and,
/// when the recorder did not summarise the fact, for the values, at most
/// fetch_budget a frame. What it keeps is bounded whatever the run's length:
/// the value columns, the last 100 forwards' node facts, a minute of
/// per-second counts. Not shared between threads.
class run_follower {
public:
  /// Fact blobs read for values in one frame, at most (a catching up view
  /// stays responsive; the fact line says how far it got).
  static constexpr std::size_t fetch_budget = 5000;

  /// Follows `run`'s `fact` ("loss" meaning "loss.value", or fact.field);
  /// says a run is quiet after `quiet_after_s` seconds without a forward, or
  /// 3 times the recent mean gap between forwards when that is longer.
  run_follower(std::string run, std::string fact, std::int64_t quiet_after_s = 5);

  /// The view now (`now`: unix seconds), not its opinions (opinion_lines,
  /// which watch() judges at most once a second). A run not there yet is
  /// `found = false`, not an error. Throws store_error for damaged records.
  [[nodiscard]] view read(const store& s, std::int64_t now);

  /// The machines the run's forwards went to since the view began (the
  /// hosts of its last 100 forwards when it began; 256 hosts at most), by
  /// the `machine` facts that came down their wires: host -> machine id, the
  /// latest join of each host.
  [[nodiscard]] const std::map<std::string, std::string>& machines() const noexcept {
    return machines_;
  }

private:
  struct pending {     // a forward that may still change: open, or the latest
    outcome state = outcome::open;
    std::optional<double> value;
  };
  void reset();
  // Reads what is new since the last frame: the forwards from the latest
  // read on, again those still open, and their values and node facts.
  // Returns how many forwards the run has, or nullopt while it is not
  // recorded.
  std::optional<std::uint64_t> read_new(const store& s);
  void count_into(view& v) const;                 // the counts, values and last value
  void time_into(view& v, std::int64_t now);      // the rate, elapsed time and quiet
  [[nodiscard]] std::vector<node_row> slowest() const; // the 5 slowest nodes
  void take(const store& s, const record& r, std::uint64_t total);
  std::optional<double> value_of(const store& s, const record& r);
  void settle(std::uint64_t n, outcome state, std::optional<double> value);
  void read_values(const store& s);
  void read_nodes(const store& s, std::uint64_t total);
  const std::vector<fact>& facts_of(const store& s, std::uint64_t n);

  std::string run_, fact_, key_, name_, field_;
  std::int64_t quiet_after_s_;
  std::optional<bool> summarised_;            // whether records carry the fact (curve_costs)
  std::uint64_t next_ = 0;                    // forwards before it were read
  std::uint64_t ok_ = 0, broke_ = 0;          // the settled ones
  std::map<std::uint64_t, pending> pending_;  // read, may still change
  std::uint64_t valued_ = 0;                  // fetch mode: forwards before it have their value
  std::uint64_t told_ = 0;
  std::optional<std::pair<std::uint64_t, double>> last_; // the latest settled value
  value_columns values_;
  std::optional<std::int64_t> first_when_;
  std::int64_t last_when_ = 0;
  std::map<std::int64_t, std::uint64_t> per_second_; // forwards by the second they began
  std::deque<std::int64_t> recent_whens_;     // the last forwards' beginnings, for the mean gap
  std::deque<std::pair<std::uint64_t, std::vector<fact>>> node_facts_; // the last 100 forwards
  std::map<std::uint64_t, std::vector<fact>> fetched_; // this frame's fact blobs
  std::map<std::string, std::string> machines_; // host -> machine id, from machine facts
};

/// The state of each machine of `machines` (host -> id, run_follower::
/// machines) that has a reading in the store, judged against the reader's
/// clock `now_us`: one scan of the latest readings.
[[nodiscard]] std::vector<std::pair<std::string, machine_state>>
machine_states(const store& s, const std::map<std::string, std::string>& machines,
               std::int64_t now_us);

/// The shipped health rules' firing opinions about `run`, its machines and
/// its trial, one line each (what `soma health` costs: the whole store's
/// tails); damage elsewhere in the store is one line saying so.
[[nodiscard]] std::vector<std::string> opinion_lines(const store& s, const std::string& run);

/// The view as at most `height` lines at most `width` columns wide: the run,
/// the counts, the rate and elapsed time, a line when no forward came for a
/// while, the last value, a sparkline of the whole run (each column's range),
/// a line of firing opinions (marked as opinions), the slowest nodes. When
/// the height is short the least important go first: the blank line, then
/// the slowest nodes one by one, the opinions, the sparkline's second row.
[[nodiscard]] std::vector<std::string>
render(const view& v, std::size_t width,
       std::size_t height = std::numeric_limits<std::size_t>::max());

/// The columns `s` takes on a terminal: one a character (UTF-8 continuation
/// bytes take none; every character render() writes is one column wide).
[[nodiscard]] std::size_t text_columns(const std::string& s);

} // namespace soma::cli
