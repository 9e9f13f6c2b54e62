#pragma once

/// @file
/// Facts into and out of Cap'n Proto lists: one way for every message that
/// holds facts (a format-1 blob, a worker's answer, a recorder's batch sent
/// to a served store).

#include <vector>

#include "soma/fact.hpp"
#include "soma/schema/soma.capnp.h"

namespace soma::detail {

/// Fills `out` (sized facts.size()) with `facts`. Text holding NUL bytes is
/// written with U+FFFD in their place: Cap'n Proto text cannot hold them.
void write_facts(capnp::List<schema::Fact>::Builder out, const std::vector<fact>& facts);

/// The facts of `in`, in order.
[[nodiscard]] std::vector<fact> read_facts(capnp::List<schema::Fact>::Reader in);

/// Fills `out` (sized in.size()) with `in`, NULs as in write_facts.
void write_fields(capnp::List<schema::Field>::Builder out, const std::vector<field>& in);

/// The fields of `in`, in order.
[[nodiscard]] std::vector<field> read_fields(capnp::List<schema::Field>::Reader in);

} // namespace soma::detail
