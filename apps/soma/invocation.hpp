#pragma once

/// @file
/// What one `soma` command line asks for, as plain values: cli.cpp and the
/// subcommands' add_NAME() (commands/) fill it from argv, commands.cpp and
/// their show_NAME() carry it out, so the reading never sees CLI11.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace soma::cli {

/// The subcommands: one per reader of soma/store/readers.hpp, the cache's,
/// the fleet's (soma/store/readings.hpp, fleet.hpp), the figures (`plot`)
/// and the terminal view (`live`).
enum class command {
  runs, forwards, curve, facts, nodes, cache_ls, cache_clear, standing, fleet,
  plot_progress, plot_spent, plot_machines, plot_graph, live, check,
  trials, reclaim, plot_study, health, serve, trace, copy, remove, compare, critical
};

/// A parsed, checked command line.
struct invocation {
  command what = command::runs;
  std::string store;              ///< --store DIR (default: soma::store::default_path())
  bool json = false;              ///< --json: one JSON array instead of a table
  bool csv = false;               ///< --csv: CSV instead of a table (output.hpp)
  std::string run;                ///< RUN, for all but `runs`, `cache` and `standing`
  std::string name;               ///< NAME, for `curve`
  std::string other;              ///< RUN_B, for `compare RUN_A RUN_B` (RUN_A is run)
  std::uint64_t forward = 0;      ///< N, for `facts` and `trace --forward N`
  bool forward_given = false;     ///< whether `trace --forward N` was given
  std::optional<std::size_t> last; ///< --last N: `nodes`' forwards; the last N rows of `runs`, `forwards`, `curve`, `trials`
  std::optional<std::size_t> first; ///< --first N: the first N rows of `runs`, `forwards`, `curve`, `trials`
  // `soma runs`' filters and order.
  std::string prefix;              ///< PREFIX: only runs whose id starts so
  std::vector<std::string> statuses; ///< --status S (repeatable): only runs that stand so
  std::vector<std::string> tags;   ///< --tag WORD (repeatable): only runs with every one
  std::vector<std::string> params; ///< --param NAME=VALUE or NAME (repeatable): only runs with it
  std::vector<std::string> where;  ///< --where 'KEY<NUMBER' (repeatable): only runs whose values hold it
  std::string sort = "first";      ///< --sort KEY: a column of `soma runs`, a value's KEY, or a parameter's name
  bool reverse = false;            ///< --reverse
  bool all_machines = false;       ///< --all-machines: `fleet` lists machines that did not touch the run too
  // `soma delete RUN...` (its runs in `runs`).
  bool yes = false;                ///< --yes: do not ask
  bool force = false;              ///< --force: delete a run still being recorded
  std::optional<std::string> node; ///< --node NAME, for `cache ls|clear`
  std::string output;              ///< -o FILE (.svg or .png), for `plot`
  std::string fact = "loss";       ///< --fact NAME, for `plot progress` and `live`
  std::optional<std::size_t> window; ///< --window N, for `plot progress`
  std::vector<std::string> program; ///< PROGRAM [ARGS...], for `plot graph`
  std::uint64_t interval_ms = 200; ///< --interval MS, for `live`
  bool once = false;               ///< --once: `live` prints one frame and exits
  bool wait = false;               ///< --wait: `live` waits for a run the store does not hold yet
  bool progress = false;           ///< --progress: `check` says how far it is on stderr
  std::string from, into;          ///< FROM and DIR, for `copy`
  std::string study;               ///< STUDY, for `trials STUDY`, `reclaim` and `plot study`
  double quiet_over = 0;           ///< --quiet-over S, for `reclaim`
  std::string result;              ///< --result NAME, for `plot study`
  std::string by;                  ///< --by PARAM, for `plot study`: the x axis
  std::string rules;               ///< --rules FILE, for `health`
  bool rules_given = false;        ///< whether --rules was given (an empty FILE is an error)
  std::optional<std::int64_t> at_us; ///< --at TIME as unix microseconds, for `health`
  bool fail_on_firing = false;     ///< --fail-on firing, for `health`
  bool list_rules = false;         ///< --list, for `health`
  std::optional<std::int64_t> replay_from_us; ///< FROM of `health --replay FROM..TO`, unix microseconds
  std::optional<std::int64_t> replay_to_us;   ///< its TO; none: the newest write
  std::int64_t every_us = 1'000'000; ///< --every S, for `health --replay`
  std::string compare_rules;       ///< --compare FILE, for `health --replay`
  std::string listen = "127.0.0.1:8080"; ///< --listen HOST:PORT, for `serve`
  std::string tls_cert, tls_key;   ///< --tls-cert FILE --tls-key FILE, for `serve`
  std::size_t live_cap = 16;       ///< --live-cap N, for `serve`
  std::optional<std::uint64_t> max_bytes; ///< --max-bytes N, for `trace`
  // `soma plot`'s figure options (issue 17): several runs and facts overlaid,
  // a log axis, a size and a title.
  std::vector<std::string> runs;   ///< RUN..., for `plot progress` (run is the first) and `delete`
  std::vector<std::string> facts;  ///< --fact NAME, repeatable, for `plot progress` (fact is the first)
  bool log_y = false;              ///< --log-y, for `plot progress`
  std::string x = "forward";       ///< --x forward|time, for `plot progress`
  int width = 0, height = 0;       ///< --size WxH, for `plot` but graph (0: the figure's own)
  std::string title;               ///< --title TEXT, for `plot` but graph (empty: its own)
  // `soma live`'s options (issue 17).
  std::uint64_t quiet_after_s = 5; ///< --quiet-after S: seconds without a forward before `live` says so
};

} // namespace soma::cli
