#pragma once

/// @file
/// A worker that claims trials (`soma-node --claim STUDY`, docs/trials.md):
/// which trial function of its node libraries it runs.

#include <memory>
#include <string>
#include <vector>

#include "soma/detail/libraries.hpp"
#include "soma/export.hpp"
#include "soma/trials/rows.hpp"

namespace soma::serve {

/// The trial function named `wanted` (--trial NAME), else the one the study
/// names, else the only one the libraries give. Throws std::invalid_argument
/// saying which there are and how to name one.
[[nodiscard]] SOMA_API_EXPORT const detail::trial_function_entry&
trial_function_for(const std::vector<std::shared_ptr<const detail::node_library>>& libraries,
                   const study_row& study, const std::string& wanted);

} // namespace soma::serve
