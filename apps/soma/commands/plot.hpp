#pragma once

/// @file
/// `soma plot`: a figure of a run (progress, spent, machines) or of a
/// graph's declaration (graph), written to the file -o names.

#include <cstddef>
#include <iosfwd>
#include <string_view>
#include <utility>

#include "soma/store/store.hpp"
#include "subcommand.hpp"

namespace soma::cli {

/// Adds `soma plot` and its figures (progress, spent, machines, study,
/// graph) to the command line.
[[nodiscard]] finish add_plot(command_line& line);

/// The most series (runs times facts) `soma plot progress` overlays on one
/// figure: beyond it the colours repeat and the legend below it takes the
/// chart's room.
inline constexpr std::size_t most_overlaid = 8;

/// The width and height of `--size WxH` ("1280x720"). Throws usage_error
/// naming the text and the bounds (soma::draw::check_size's) when it is not
/// such a size or is out of them.
[[nodiscard]] std::pair<int, int> parse_size(std::string_view text);

/// Draws the figure `inv` asks for from `s` to inv.output and says so on
/// `out`: with several runs or facts (inv.runs, inv.facts), one figure of
/// them all (soma::draw::compare). Throws store_error for an unknown run or,
/// with one series, a series nobody told; usage_error for a window that
/// cannot be a centred one, a log axis with nothing above 0, or when none
/// of several series was told.
void plot(const store& s, const invocation& inv, std::ostream& out);

/// Runs inv.program with $SOMA_DRAW_GRAPH naming a file beside inv.output,
/// and moves what it drew to inv.output. Throws usage_error when the program
/// cannot run, fails, or draws nothing (it does not call
/// soma::draw::draw_if_asked).
void plot_graph(const invocation& inv, std::ostream& out);

} // namespace soma::cli
