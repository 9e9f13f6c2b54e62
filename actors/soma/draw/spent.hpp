#pragma once

/// @file
/// soma::draw::spent: where a run's time went, per node, added up.

#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

#include "soma/draw/figure.hpp"
#include "soma/draw/framing.hpp"
#include "soma/export.hpp"
#include "soma/store/readers.hpp"

SOMA_API_BEGIN

namespace soma::draw {

/// One bar per node of `rows` (soma::nodes), in order of first appearance:
/// its took_us added up, with how often it ran, was recalled or failed.
/// `frame` sets the size and title. Throws std::invalid_argument when there
/// is no node or the size is out of bounds.
[[nodiscard]] figure spent(const std::vector<node_row>& rows, std::string_view run,
                           const framing& frame = {});

/// The figure of soma::nodes(s, run, last) (a fetch per forward read).
/// Throws store_error for an unknown run or when no node ran in it.
[[nodiscard]] figure spent(const store& s, std::string_view run,
                           std::optional<std::size_t> last = std::nullopt,
                           const framing& frame = {});

} // namespace soma::draw

SOMA_API_END
