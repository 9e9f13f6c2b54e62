#pragma once

/// @file
/// Where soma puts what it makes for a while: a worker's code directory, a
/// served store's copy in transit. One place decides where that is: the
/// directory $TMPDIR names, else /tmp (std::filesystem::temp_directory_path).

#include <string>
#include <string_view>

#include "soma/export.hpp"

namespace soma::detail {

/// Makes a new directory, readable by this user only, named
/// `<name>-XXXXXX` in the directory for temporary files, and returns its
/// path. Throws std::runtime_error naming that directory (and $TMPDIR) and
/// why, when it cannot.
[[nodiscard]] SOMA_API_EXPORT std::string make_temporary_directory(std::string_view name);

} // namespace soma::detail
