#pragma once

/// @file
/// soma::value_range as a schema's `List(ValueRange)` (schema/soma.capnp):
/// a run's summarised numbers in its totals, and in a served store's answer.

#include <vector>

#include "soma/record.hpp"
#include "soma/schema/soma.capnp.h"

namespace soma::detail {

/// Writes `xs` into `out`, which has xs.size() elements.
void put_ranges(capnp::List<schema::ValueRange>::Builder out,
                const std::vector<value_range>& xs);

/// What put_ranges wrote.
[[nodiscard]] std::vector<value_range>
get_ranges(capnp::List<schema::ValueRange>::Reader in);

} // namespace soma::detail
