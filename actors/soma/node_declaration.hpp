#pragma once

/// @file
/// soma::node_declaration: one node as a graph declares it, before anything
/// ran (what `typed_graph::declaration()` gives and `soma::draw::graph`
/// draws). No CAF header: drawing a declaration needs none.

#include <optional>
#include <string>

#include "soma/export.hpp"

SOMA_API_BEGIN

namespace soma {

/// One node as declared in a graph, before anything ran.
struct node_declaration {
  std::string name; ///< what its facts call it
  std::string type; ///< the C++ type of the node
  std::optional<std::string> frozen; ///< its frozen version, if frozen
  bool cached = false; ///< whether its outputs are kept
  std::optional<std::string> host; ///< the worker it runs on (`.at()`), else here
};

} // namespace soma

SOMA_API_END
