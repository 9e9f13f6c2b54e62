#pragma once

/// @file
/// "Did you mean": the names nearest a typo (a subcommand, a flag, a run).

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace soma::cli {

/// The edit distance between `a` and `b` (insertions, deletions, changes).
[[nodiscard]] std::size_t distance(std::string_view a, std::string_view b);

/// Of `names`, those near `typed`, nearest first (then by name), `most` at
/// most: a few edits away (two, or a third of its length when longer), or
/// starting with it, or what it starts with. None when nothing is near.
[[nodiscard]] std::vector<std::string> nearest(std::string_view typed,
                                               const std::vector<std::string>& names,
                                               std::size_t most = 3);

/// "did you mean 'a'?", "did you mean 'a' or 'b'?", "did you mean 'a', 'b' or
/// 'c'?"; "" for none.
[[nodiscard]] std::string did_you_mean(const std::vector<std::string>& near);

} // namespace soma::cli
