#pragma once

/// @file
/// soma::draw::progress: a run's series (a loss, say), thin and raw, with a
/// bold centred rolling mean over it.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "soma/draw/figure.hpp"
#include "soma/draw/framing.hpp"
#include "soma/export.hpp"
#include "soma/record.hpp"
#include "soma/store/readers.hpp"
#include "soma/store/store.hpp"

SOMA_API_BEGIN

namespace soma::draw {

/// A series as soma::curve reads it: (forward, value), forwards increasing.
using series = std::vector<std::pair<std::uint64_t, double>>;

/// How progress draws.
struct progress_options {
  /// The rolling mean's window in values told (odd); default_window(n) when
  /// not given.
  std::optional<std::size_t> window;
  /// The series holds every `every`-th value told (soma::live's bound); the
  /// figure says so when it is more than 1.
  std::size_t every = 1;
  /// A log y axis (ticks at powers of ten): values of 0 or less are not
  /// drawn, and the subtitle says how many were left out.
  bool log_y = false;
  /// Its size and title (check_size's bounds); soma's 960 x 540 otherwise.
  framing frame;
  /// Who wrote the run, one after another (soma::execution): each after the
  /// first is drawn as a vertical line at the forward it began at,
  /// labelled with its number, host, pid and time (UTC). The store overload
  /// reads them from the run.
  std::vector<execution> executions;
  /// Each value's forward's time (unix µs; soma::curve_series' when_us),
  /// one per value: then x is the wall time, in seconds since the first
  /// value, rather than the forward, and a later execution is drawn at the
  /// time it began. Empty: x is the forward.
  std::vector<std::int64_t> when_us;
};

/// What a store's progress is drawn against: the forward number, or the
/// wall time of each forward (seconds since the first value).
enum class x_axis { forward, time };

/// The figure of `values` of fact `fact` over run `run`: the raw series as a
/// thin line through every point, the centred rolling mean (rolling_mean:
/// drawn where its window is full, the window stated on the figure) bold
/// over it, forward along x (ticks on whole forwards; or the wall time, with
/// progress_options::when_us) and the value along y.
/// Straight segments between actual points only; a series of one point is
/// drawn as a dot (`series-point`). When there are more points than pixels
/// across, each pixel column keeps its first, lowest, highest and last point
/// (still actual points, and the same picture). A window wider than the
/// series is narrowed to fit (fitting_window), and the figure says so. The
/// legend sits below the chart, outside it, so it never covers a point.
/// Throws std::invalid_argument for an empty series, a value that is not
/// finite, an even window, a size out of bounds, or, on a log axis, no
/// value above 0.
[[nodiscard]] figure progress(const series& values, std::string_view run,
                              std::string_view fact = "loss", const progress_options& options = {});

/// The figure of soma::curve(s, run, fact) (one scan when the recorder
/// summarised `fact`, else a fetch per forward), against the forward or,
/// with x_axis::time, the wall time (soma::curve_series: a fetch also reads
/// each point's record). Throws store_error for an unknown run or a run
/// where no forward told `fact` (and, for a time axis, a served store of a
/// soma before 0.5, which sends no times), and what the other overload
/// throws.
[[nodiscard]] figure progress(const store& s, std::string_view run, std::string_view fact = "loss",
                              const progress_options& options = {}, x_axis x = x_axis::forward);

/// A run's values of a fact with each one's time, for a time axis.
struct timed_values {
  series values;
  std::vector<std::int64_t> when_us; ///< one per value (progress_options::when_us)
};

/// soma::curve_series(s, run, fact, took) as a series and its times.
/// Throws store_error (refused) when a served store of a soma before 0.5
/// answered, which sends no times, and what curve_series throws.
[[nodiscard]] timed_values timed_curve(const store& s, std::string_view run, std::string_view fact,
                                       curve_cost* took = nullptr);

/// One series in a comparison: a run's values of a fact.
struct compared {
  std::string run;
  series values;
  /// The fact these values are of; empty: the fact compare is given.
  std::string fact;
  /// How the legend names the run (its params, "lr=0.05"); empty: its id.
  std::string label;
};

/// How compare's legend names each run of `runs` (compared::label), by what
/// it was: its params (`params[i]`, "lr=0.05"), with its id too where two
/// runs have the same ("lr=0.05 (lr.1)"); empty, so its id alone, for a run
/// without params. `soma plot progress` and the page's comparison both name
/// runs so.
[[nodiscard]] std::vector<std::string> labels_by_params(const std::vector<std::string>& runs,
                                                        const std::vector<values>& params);

/// How compare draws.
struct compare_options {
  /// Every series' rolling mean window (odd); each one's default_window
  /// when not given. Narrowed to fit a shorter series (fitting_window).
  std::optional<std::size_t> window;
  /// A log y axis, as progress_options::log_y.
  bool log_y = false;
  /// Its size and title; soma's 960 x 540 otherwise.
  framing frame;
};

/// Several series on one chart, for comparing (several runs of a fact, or
/// several facts of runs): each one's values thin and its centred rolling
/// mean (where its window is full) bold, in a colour of its own, and
/// named in a legend below the chart (never over it): by its run (its
/// label, when it has one) when all are of one fact, else by run/fact. A
/// series of one point is a dot. Series that told nothing are
/// named in the subtitle, not drawn. Throws std::invalid_argument when no
/// series has a value to draw, a value is not finite or the size is out of
/// bounds.
[[nodiscard]] figure compare(const std::vector<compared>& runs, std::string_view fact = "loss",
                             const compare_options& options = {});

} // namespace soma::draw

SOMA_API_END
