#pragma once

/// @file
/// soma::draw::graph: a graph's declaration drawn having never run: its
/// nodes in order, where each runs, which are frozen or cached.

#include <concepts>
#include <string_view>
#include <vector>

#include "soma/draw/figure.hpp"
#include "soma/export.hpp"

SOMA_API_BEGIN

namespace soma {
struct node_declaration; // soma/node_declaration.hpp
} // namespace soma

namespace soma::draw {

/// The declaration `nodes` (what `g.declaration()` returns) as boxes joined
/// by arrows in the order a forward visits them, five to a row: each box
/// says the node's name, its C++ type, the host it runs on ("here", or
/// "at w1" for `.at("w1")`, shaded apart), and "frozen <version>" and
/// "cached" when it is. Throws std::invalid_argument for an empty
/// declaration.
[[nodiscard]] figure graph(const std::vector<node_declaration>& nodes,
                           std::string_view title = "graph");

/// The same for a graph `g` (soma::typed_graph: anything with a
/// declaration()): `soma::draw::graph(g, "seed").save("graph.svg")`. What
/// `g.draw(title)` was before 0.5; drawing lives with the figures, so a
/// program that only runs graphs links no figures library.
template <class Graph>
  requires requires(const Graph& g) {
    { g.declaration() } -> std::convertible_to<const std::vector<node_declaration>&>;
  }
[[nodiscard]] figure graph(const Graph& g, std::string_view title = "graph") {
  return graph(g.declaration(), title);
}

/// The environment variable `soma plot graph` sets to the file it wants.
inline constexpr const char* draw_graph_variable = "SOMA_DRAW_GRAPH";

/// When $SOMA_DRAW_GRAPH names a file, saves graph(nodes, title) there and
/// returns true (a program then usually stops: `soma plot graph PROGRAM`
/// asked it only for the picture); else returns false and does nothing.
/// Throws what figure::save throws.
bool draw_if_asked(const std::vector<node_declaration>& nodes, std::string_view title = "graph");

} // namespace soma::draw

SOMA_API_END
