#pragma once

/// @file
/// soma::draw::machines: per host, the time working there against the time
/// waiting on the wire, so whether sending work there was worth it shows at
/// a glance.

#include <string_view>
#include <vector>

#include "soma/draw/figure.hpp"
#include "soma/draw/framing.hpp"
#include "soma/export.hpp"
#include "soma/store/hosts.hpp"

SOMA_API_BEGIN

namespace soma::draw {

/// One stacked bar per host of `rows` (soma::hosts): working (teal) then
/// waiting (orange), with the slices sent there; each bar's note says both
/// in one unit, and a wait too short to see is drawn 3 px wide
/// (least_part_width). `frame` sets the size and title. Throws
/// std::invalid_argument when there is no host or the size is out of bounds.
[[nodiscard]] figure machines(const std::vector<host_row>& rows, std::string_view run,
                              const framing& frame = {});

/// The figure of soma::hosts(s, run) (a fetch per forward). Throws
/// store_error for an unknown run or one where nothing ran.
[[nodiscard]] figure machines(const store& s, std::string_view run, const framing& frame = {});

} // namespace soma::draw

SOMA_API_END
