#pragma once

/// @file
/// What each page of `soma serve` shows, as JSON (docs/web.md "The JSON
/// API"): plain functions of a store and the query's parameters, so a test
/// checks them against the readers without a socket, and the page and a
/// script read the same thing. Rows are those of `soma ... --json`
/// (soma/web/json.hpp).
///
/// | function       | answers                    | costs                              |
/// | -------------- | -------------------------- | ---------------------------------- |
/// | runs_page      | /api/runs                  | one read per run (soma serve: a runs_tally, then what is new) |
/// | store_page     | /api/store                 | the runs' rows, and one scan of the latest readings |
/// | run_page       | /api/run/R                 | one scan of the run, one fetch     |
/// | forwards_page  | /api/run/R/forwards        | a seek and `limit` records         |
/// | forward_page   | /api/run/R/forward/N       | one fetch                          |
/// | curve_page     | /api/run/R/curve           | soma::curve                        |
/// | curve_svg      | /api/run/R/curve.svg       | soma::curve per run drawn          |
/// | curve_png      | /api/run/R/curve.png       | as curve_svg                       |
/// | curve_csv      | /api/run/R/curve.csv       | soma::curve                        |
/// | compare_page   | /api/run/A/compare/B       | soma::nodes of each run            |
/// | nodes_page     | /api/run/R/nodes           | a fetch per forward of the last    |
/// | fleet_page     | /api/run/R/fleet           | soma::fleet: a fetch per forward   |
/// | standing_page  | /api/fleet                 | one scan of the latest readings    |
/// | studies_page   | /api/trials                | one scan of every study's trials   |
/// | study_page     | /api/trials/S              | one scan of the study's trials     |
/// | study_svg      | /api/trials/S/figure.svg   | soma::draw::study: the trials, a curve per trial |
/// | health_page    | /api/health                | soma::health::judge                |
/// | health_replay_page | /api/health/replay     | soma::health::replay               |

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>

#include "soma/draw/figure.hpp"
#include "soma/store/run_query.hpp"
#include "soma/store/store.hpp"
#include "soma/web/json.hpp"

namespace soma::web {

/// A query's parameters, by name (the last given counts).
using params = std::map<std::string, std::string, std::less<>>;

/// A query's parameters, every value of each name in the order given: what
/// a repeatable one needs (/api/runs?status=running&status=died).
using all_params = std::multimap<std::string, std::string, std::less<>>;

/// The last value given of each name of `p`.
[[nodiscard]] params last_of(const all_params& p);

/// A request that cannot be answered: the HTTP status and a sentence saying
/// what was wrong and what to do. Readers' store_errors become these: 404
/// for a run, forward or study the store does not have, 500 for damage.
class api_error : public std::runtime_error {
public:
  api_error(int status, const std::string& message)
    : std::runtime_error(message), status_(status) {}
  [[nodiscard]] int status() const noexcept { return status_; }

private:
  int status_;
};

/// The runs /api/runs' parameters ask for, as `soma runs` takes them:
/// `prefix` (PREFIX), `status` and `tag` (repeatable: any of the statuses,
/// all of the tags), `param` (repeatable: NAME=VALUE or NAME, all of them),
/// `sort` (a column or a parameter's name) and `reverse` (1 or 0). Without
/// `sort`, most recent first: by `last`, reversed (`reverse=1` then turns
/// it oldest first). Throws api_error 400 naming a status or param that
/// cannot be one (soma::check_query).
[[nodiscard]] run_query run_query_of(const all_params& p);

/// {"total", "offset", "limit", "filter", "query", "param_names", "runs":
/// [run rows]}: the runs run_query_of(p) asks for (soma::select_runs, as
/// `soma runs` selects them) whose name also holds `filter`, in its order,
/// `limit` (default 50, at most 1000) from `offset`. "query" is what was
/// asked ({"prefix", "status", "tag", "param", "sort", "reverse"}) and
/// "param_names" every parameter's name of any run (what can be sorted by).
/// A sort key that is neither a column nor a parameter is a 400 naming it.
[[nodiscard]] json runs_page(const store& s, const all_params& p);

/// The same page of `rows` (what runs() or a runs_tally answered).
[[nodiscard]] json runs_page(std::vector<run_row> rows, const all_params& p);

/// {"newest_write_us", "newest_reading_us", "newest_forward_us",
/// "silent_after_s", "now_us"}: when the store last moved by its writers'
/// clocks (the newest of any machine's latest reading and any run's last
/// forward, whole seconds; null when nothing was written), the server's
/// clock now, and the shipped silent_store rule's threshold (300 s). `rows`
/// are the store's runs (what runs() or a runs_tally answered).
[[nodiscard]] json store_page(const store& s, const std::vector<run_row>& rows);

/// {"run": its row, "series": the summarised series' names (a record's
/// summary keys, "loss.value"), "told": every other name a curve can be
/// drawn of, as its last forward told them, "ended_us": when its recorder
/// closed or null}.
[[nodiscard]] json run_page(const store& s, std::string_view run);

/// {"total", "offset", "limit", "forwards": [records]}: `limit` (default 100,
/// at most 1000) forwards from forward `offset`; `offset=-N` counts back
/// from the end.
[[nodiscard]] json forwards_page(const store& s, std::string_view run, const params& p);

/// {"record", "facts": [facts, in the order told]}.
[[nodiscard]] json forward_page(const store& s, std::string_view run, std::uint64_t n);

/// {"fact", "cost" ("scan" or "fetch"), "points": [{"forward", "value"}]}:
/// the curve of `fact` (default loss), only forwards `from` to `to` when
/// given, at most `points` of them when given (per bucket of forwards, its
/// first, lowest, highest and last: every point kept is a real one).
[[nodiscard]] json curve_page(const store& s, std::string_view run, const params& p);

/// The progress figure of `fact` over the run (soma::draw::progress, as
/// `soma plot progress` draws it), only forwards `from` to `to` when given,
/// the rolling mean over `window` values (odd; `soma plot --window`) and a
/// log y axis with `log_y=1` (`soma plot --log-y`) when asked, the points a
/// pointer hovers over (curve_page's with points=2000) on its root as
/// data-points="forward value;..."; with `with=R2,R3` the runs compared on
/// one chart (soma::draw::compare), a name the store has no run of left off
/// and named on the root as data-unknown="R3" (comma-separated).
[[nodiscard]] draw::figure curve_figure(const store& s, std::string_view run, const params& p);

/// curve_figure as SVG, and as PNG (cairo, the same marks).
[[nodiscard]] std::string curve_svg(const store& s, std::string_view run, const params& p);
[[nodiscard]] std::string curve_png(const store& s, std::string_view run, const params& p);

/// The curve as `soma curve RUN NAME --csv` prints it (soma/web/csv.hpp),
/// only forwards `from` to `to` when given.
[[nodiscard]] std::string curve_csv(const store& s, std::string_view run, const params& p);

/// `soma compare A B --json`: the two runs' nodes side by side
/// (soma/web/compare.hpp).
[[nodiscard]] json compare_page(const store& s, std::string_view a, std::string_view b);

/// `soma plot study S` as SVG: `by=PARAM` (default: the study's only
/// parameter), `result=NAME`, `fact=NAME` as its options.
[[nodiscard]] std::string study_svg(const store& s, std::string_view study, const params& p);

/// `soma plot spent` and `soma plot machines` of the run, as SVG.
[[nodiscard]] std::string spent_svg(const store& s, std::string_view run, const params& p);
[[nodiscard]] std::string machines_svg(const store& s, std::string_view run);

/// {"last", "nodes": [node rows]} over the run's last `last` forwards
/// (default 1000; `all` for every one).
[[nodiscard]] json nodes_page(const store& s, std::string_view run, const params& p);

/// soma critical RUN --json over the run's last `last` forwards (default
/// 100, at most 10,000): where their time went across machines.
[[nodiscard]] json critical_page(const store& s, std::string_view run, const params& p);

/// {"hosts": [fleet rows]}: soma fleet RUN.
[[nodiscard]] json fleet_page(const store& s, std::string_view run);

/// {"machines": [standing rows with quiet_s]}: soma standing.
[[nodiscard]] json standing_page(const store& s);

/// {"studies": [study rows]}: soma trials.
[[nodiscard]] json studies_page(const store& s);

/// {"study", "trials": [trial rows]}: soma trials STUDY.
[[nodiscard]] json study_page(const store& s, std::string_view study);

/// {"opinions": [...], "now_us", "machines", "runs", "trials", "note"}: the
/// shipped rules' opinions (soma health), only about `run` when given. The
/// note says they are opinions at stated thresholds, not facts.
[[nodiscard]] json health_page(const store& s, const params& p);

/// The most steps a replay on the page takes (a page's request must stay
/// short; `soma health --replay` takes health::most_replay_steps).
inline constexpr std::int64_t page_replay_steps = 100'000;
/// The longest window a page's replay covers, s: a replay reads every forward
/// in its window, and the page's longest choice is a day.
inline constexpr std::int64_t page_replay_window_s = 86'400;

/// {"episodes": [...], "from_us", "to_us", "last_us", "every_us", "steps",
/// "machines", "runs", "trials", "note"}: the shipped rules replayed
/// (soma health --replay) from `from` to `to` (unix seconds; `to` by default
/// the newest write, `from` by default `span_s` before it, an hour) every
/// `every_ms` (1000), only about `run` when given. A 400 api_error for a window of more than page_replay_steps steps or page_replay_window_s seconds.
[[nodiscard]] json health_replay_page(const store& s, const params& p);

/// The HTTP status a reader's store_error answers, by its trouble(): 400
/// invalid (a name that cannot be one), 404 missing (a run, forward, study
/// or fact the store does not have), 503 unreachable (a served store), 500
/// damaged or failed (the store could not be read).
[[nodiscard]] int status_of(const store_error& e) noexcept;

/// Runs `f`, turning the readers' store_errors into api_errors (status_of).
template <class F>
auto answering(F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const store_error& e) {
    throw api_error(status_of(e), e.what());
  }
}

} // namespace soma::web
