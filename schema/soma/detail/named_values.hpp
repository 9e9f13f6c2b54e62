#pragma once

/// @file
/// soma::values as a schema's `List(Named)` (schema/soma.capnp): a trial's
/// parameters and result, and a run's parameters.

#include "soma/schema/soma.capnp.h"
#include "soma/values.hpp"

namespace soma::detail {

/// Writes `xs` into `out`, which has xs.size() elements.
void put_values(capnp::List<schema::Named>::Builder out, const values& xs);

/// What put_values wrote. Throws undecodable for a kind this soma does not know.
[[nodiscard]] values get_values(capnp::List<schema::Named>::Reader in);

} // namespace soma::detail
