#pragma once

/// @file
/// `soma plot`: a figure of a run (progress, spent, machines) or of a
/// graph's declaration (graph), written to the file -o names.

#include <iosfwd>

#include "invocation.hpp"
#include "soma/store/store.hpp"

namespace soma::cli {

/// Draws the figure `inv` asks for from `s` to inv.output and says so on
/// `out`. Throws store_error for an unknown run or a series nobody told,
/// usage_error for a window that cannot be a centred one.
void plot(const store& s, const invocation& inv, std::ostream& out);

/// Runs inv.program with $SOMA_DRAW_GRAPH naming a file beside inv.output,
/// and moves what it drew to inv.output. Throws usage_error when the program
/// cannot run, fails, or draws nothing (it does not call
/// soma::draw::draw_if_asked).
void plot_graph(const invocation& inv, std::ostream& out);

} // namespace soma::cli
