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
#include "soma/store/store.hpp"

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
};

/// The figure of `values` of fact `fact` over run `run`: the raw series as a
/// thin line through every point, the centred rolling mean (rolling_mean,
/// the window stated on the figure) bold over it, forward along x and the
/// value along y. Straight segments between actual points only. When there
/// are more points than pixels across, each pixel column keeps its first,
/// lowest, highest and last point (still actual points, and the same
/// picture). Throws std::invalid_argument for an empty series, a value that
/// is not finite, or an even window.
[[nodiscard]] figure progress(const series& values, std::string_view run,
                              std::string_view fact = "loss", const progress_options& options = {});

/// The figure of soma::curve(s, run, fact) (one scan when the recorder
/// summarised `fact`, else a fetch per forward). Throws store_error for an
/// unknown run or a run where no forward told `fact`, and what the other
/// overload throws.
[[nodiscard]] figure progress(const store& s, std::string_view run, std::string_view fact = "loss",
                              const progress_options& options = {});

/// One run's series in a comparison.
struct compared {
  std::string run;
  series values;
};

/// Several runs' series of `fact` on one chart, for comparing: each run's
/// values thin and its centred rolling mean (its default_window) bold, in a
/// colour of its own, named in a legend. Runs that told nothing are named
/// in the subtitle, not drawn. Throws std::invalid_argument when no run told
/// `fact` or a value is not finite.
[[nodiscard]] figure compare(const std::vector<compared>& runs, std::string_view fact = "loss");

} // namespace soma::draw
