#pragma once

/// @file
/// `soma health --replay FROM..TO`: a rulebook judged at every step of a
/// past window, its opinions as episodes (pending, firing, cleared), and
/// with `--compare FILE` how a second rulebook's episodes differ
/// (soma/health/replay.hpp, docs/health.md).

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>

#include "invocation.hpp"
#include "soma/health/rulebook.hpp"
#include "soma/store/store.hpp"

namespace soma::cli {

/// FROM..TO: each a moment as `--at` takes it (parse_moment); TO may be
/// empty for the newest write. Throws usage_error naming the forms, and
/// when FROM is after TO.
struct replay_window {
  std::int64_t from_us = 0;
  std::optional<std::int64_t> to_us;
};
[[nodiscard]] replay_window parse_window(const std::string& text);

/// `--every S`: a step as a rules file gives a duration (500ms, 1s, 2m, a
/// bare number of seconds), over 0. Throws usage_error.
[[nodiscard]] std::int64_t parse_every(const std::string& text);

/// Prints the episodes of `book` over inv.replay (or, with inv.compare_rules,
/// how the shipped rules with that file applied differ from `book`'s).
/// Returns exit_ok, or exit_firing with --fail-on firing when an episode
/// fired. Throws usage_error for a window a replay cannot take or a rules
/// file that cannot be used, store_error for the store.
[[nodiscard]] int show_replay(const store& s, const health::rulebook& book, const invocation& inv,
                              std::ostream& out, std::ostream& err);

} // namespace soma::cli
