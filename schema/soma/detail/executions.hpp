#pragma once

/// @file
/// soma::execution as a schema's `List(Execution)` (schema/soma.capnp): a
/// run's executions in its metadata, and in a served store's answer.

#include <vector>

#include "soma/record.hpp"
#include "soma/schema/soma.capnp.h"

namespace soma::detail {

/// Writes `xs` into `out`, which has xs.size() elements.
void put_executions(capnp::List<schema::Execution>::Builder out,
                    const std::vector<execution>& xs);

/// What put_executions wrote.
[[nodiscard]] std::vector<execution>
get_executions(capnp::List<schema::Execution>::Reader in);

} // namespace soma::detail
