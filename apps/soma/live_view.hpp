#pragma once

/// @file
/// `soma live`: what a terminal view of a run shows (read from the store as
/// another process records), drawn as lines of text, and the loop that
/// redraws it in place.

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "invocation.hpp"
#include "soma/store/readers.hpp"
#include "soma/store/store.hpp"

namespace soma::cli {

/// One moment of a run, as the view shows it.
struct view {
  std::string run;
  std::string fact;
  bool found = false;             ///< whether the run is in the store yet
  std::uint64_t forwards = 0;
  std::uint64_t ok = 0, broke = 0, open = 0;
  std::vector<double> values;     ///< the fact's latest values, oldest first
  std::uint64_t told = 0;         ///< how many forwards told the fact
  std::vector<node_row> slowest;  ///< nodes by mean time, slowest first (last 100 forwards)
  /// The shipped health rules' firing opinions about the run, its machines
  /// and its trial (soma/health/), each as rule, subject, value over threshold.
  std::vector<std::string> opinions;
};

/// Reads the view of `run` from `s`: forwards (one scan), the fact's values
/// (from the records when summarised, else the last `points` forwards'
/// facts) and nodes of the last 100 forwards; not its opinions
/// (opinion_lines, which watch() judges at most once a second). A run not there yet is
/// `found = false`, not an error. Throws store_error for damaged records.
[[nodiscard]] view read_view(const store& s, const std::string& run, const std::string& fact,
                             std::size_t points);

/// The shipped health rules' firing opinions about `run`, its machines and
/// its trial, one line each (what `soma health` costs: the whole store's
/// tails); damage elsewhere in the store is one line saying so.
[[nodiscard]] std::vector<std::string> opinion_lines(const store& s, const std::string& run);

/// The view as lines at most `width` columns wide: the run, the counts, the
/// last value, a sparkline of the values, a line of firing opinions (marked
/// as opinions), the slowest nodes.
[[nodiscard]] std::vector<std::string> render(const view& v, std::size_t width);

/// `soma live`: redraws the view of inv.run every inv.interval_ms until q
/// or Ctrl-C (or prints one frame with --once), restoring the terminal as
/// it found it. Reads only.
void watch(const store& s, const invocation& inv, std::ostream& out);

/// For `soma live` on a directory that holds no store yet: says so on `err`
/// and waits, looking every inv.interval_ms, until a recorder has made one
/// there (as `tensorboard --logdir` waits for its logs), never creating
/// anything itself. Returns false when a signal (Ctrl-C, SIGTERM, SIGHUP)
/// ended the wait first. Returns at once for a store that exists, a served
/// one (soma://) and `--once`.
[[nodiscard]] bool wait_for_store(const invocation& inv, std::ostream& err);

} // namespace soma::cli
