#pragma once

/// @file
/// How the store judges a run's writer (soma/store/run_status.hpp has what
/// other layers read): only the store layer calls these, so they are
/// not exported.

#include <string>

#include "soma/store/run_status.hpp"

namespace soma::detail {

/// This process as a served store's server writing for `client`.
[[nodiscard]] run_writer writer_for(std::string client);

/// Where the run whose metadata is `m` stands, judged on this machine now.
[[nodiscard]] run_standing standing_of(const run_meta& m);

} // namespace soma::detail
