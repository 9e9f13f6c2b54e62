#pragma once

/// @file
/// `soma standing|fleet --store A,B,...`: a fleet whose machines report into
/// several stores, each serving a share of its hosts (docs/scale.md): their
/// machines merged, and a run's fleet read from the store that holds it.

#include <iosfwd>

#include "invocation.hpp"

namespace soma::cli {

/// Answers `inv`, whose --store names several stores, on `out` (and `err`,
/// as one store's standing would). Returns exit_ok. Throws usage_error for
/// a command other than `standing` and `fleet`, or an empty name between
/// commas; store_error for a store that cannot be opened, and no_run_error
/// when no store holds the run.
[[nodiscard]] int several_stores(const invocation& inv, std::ostream& out, std::ostream& err);

} // namespace soma::cli
