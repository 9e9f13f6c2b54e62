#pragma once

/// @file
/// The engine's closed vocabulary of facts and the fields each carries.
///
/// | fact       | fields                                              |
/// | ---------- | --------------------------------------------------- |
/// | `ran`      | node, began_us, took_us (+ host when remote)         |
/// | `failed`   | node, error, began_us, took_us (+ host)              |
/// | `recalled` | node, began_us, took_us, bytes (a cache hit)         |
/// | `kept`     | node, began_us, took_us, bytes (a cache write)       |
/// | `items`    | node, done, of (progress through a collection)       |
/// | `left`     | host, began_us, took_us (a trip to a worker) (+ sent_us, taken_us, held_us) |
/// | `finished` | took_us                                              |
/// | `broke`    | node, error, took_us                                 |
/// | `machine`  | id, busy, memory, cores, up_us, served, host         |
///
/// `began_us` is microseconds since the forward began, on the clock of
/// whoever stamped it; `took_us` is a duration in microseconds. A worker
/// stamps its facts from when its session took the slice; the trip's `left`
/// says when it was sent (`sent_us`, unix µs by the client's clock), when
/// the worker took it (`taken_us`, unix µs by the worker's) and how long the
/// worker held it (`held_us`), so that a reader can estimate the worker's
/// clock offset (docs/critical.md). Nothing in a
/// fact is a judgement.

#include <array>
#include <string_view>

#include "soma/export.hpp"

SOMA_API_BEGIN

namespace soma::vocabulary {

inline constexpr std::string_view ran = "ran";
inline constexpr std::string_view failed = "failed";
inline constexpr std::string_view recalled = "recalled";
inline constexpr std::string_view kept = "kept";
inline constexpr std::string_view items = "items";
inline constexpr std::string_view left = "left";
inline constexpr std::string_view finished = "finished";
inline constexpr std::string_view broke = "broke";
inline constexpr std::string_view machine = "machine";

/// Every name the engine says, in the order above.
inline constexpr std::array<std::string_view, 9> all = {
  ran, failed, recalled, kept, items, left, finished, broke, machine};

/// Whether `name` ends a forward: `finished` or `broke`, which the engine
/// says once a forward.
constexpr bool ends_forward(std::string_view name) noexcept {
  return name == finished || name == broke;
}

/// Whether `name` is one of the engine's words, which only the engine says.
constexpr bool is_engine_word(std::string_view name) noexcept {
  for (auto w : all)
    if (w == name)
      return true;
  return false;
}

} // namespace soma::vocabulary

SOMA_API_END
