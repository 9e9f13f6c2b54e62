#pragma once

/// @file
/// Running one slice on a worker: Slice bytes in, SliceResult bytes out.

#include <optional>
#include <string>
#include <string_view>

#include "soma/fact.hpp"
#include "soma/serve/catalog.hpp"

namespace soma::serve {

/// Runs the slice in `bytes` with the nodes of `catalog` and answers with a
/// SliceResult (schema/remote.capnp). `first` (a `machine` fact) leads the
/// facts when given. Never throws for bad bytes: they are a badSlice answer.
/// `ran`, when given, is set to false when the answer is a needsCode
/// refusal: the slice comes again once its code is shipped.
std::string run_slice(session_catalog& catalog, std::string_view bytes,
                      std::optional<fact> first, bool* ran = nullptr);

} // namespace soma::serve
