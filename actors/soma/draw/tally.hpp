#pragma once

/// @file
/// soma::draw::tally: what soma::live keeps of every fact it is told: counts,
/// each node's time, and the series progress draws, in bounded memory.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "soma/draw/progress.hpp"
#include "soma/export.hpp"
#include "soma/fact.hpp"

SOMA_API_BEGIN

namespace soma::draw {

/// One node's time as a tally saw it.
struct node_time {
  std::string node;
  std::uint64_t ran = 0;
  std::uint64_t failed = 0;
  std::int64_t took_us = 0; ///< ran and failed, added
};

/// Counts every fact it is told and keeps the series of one fact, numbering
/// forwards as a recorder does (in the order they began, from 0), so its
/// series is the one soma::curve reads back from a recorder told the same.
///
/// Memory is bounded: the series keeps at most `bound` values; when one more
/// would exceed it, every other kept value is dropped (forwards that are not
/// a multiple of twice `every()`), and from then on only forwards that are a
/// multiple of `every()` are kept. Every value kept is a value told, nothing
/// is averaged or invented; the figure says "every k-th". Node times are one
/// entry per node name. Not thread-safe: one owner (soma::live's actor).
class tally {
public:
  /// Keeps the series of `name`: a fact ("loss", meaning its "value" field)
  /// or a fact and field ("loss.value"). Throws std::invalid_argument for a
  /// bound below 2.
  explicit tally(std::string_view name = "loss", std::size_t bound = 1 << 16);

  /// A fact of forward `forward` (an id unique within the process, as a
  /// forward-aware watcher is told it): a forward seen for the first time
  /// begins the next number.
  void add(std::uint64_t forward, const fact& f);

  /// A fact told without a forward (`live.tell`): it joins the forward that
  /// began last, or the first forward when none began yet.
  void add(const fact& f);

  /// The series kept: (forward number, value); when a forward told the fact
  /// more than once, the last counts. A value that is not a number is not
  /// kept (see unreadable()).
  [[nodiscard]] const series& values() const noexcept { return values_; }

  /// Forwards kept are the multiples of this (1 until the bound was met).
  [[nodiscard]] std::size_t every() const noexcept { return every_; }

  /// The last value told, kept or not.
  [[nodiscard]] std::optional<double> last() const noexcept { return last_; }

  [[nodiscard]] std::uint64_t forwards() const noexcept { return begun_; } ///< forwards begun
  [[nodiscard]] std::uint64_t finished() const noexcept { return finished_; }
  [[nodiscard]] std::uint64_t broke() const noexcept { return broke_; }
  [[nodiscard]] std::uint64_t facts() const noexcept { return facts_; } ///< every fact told
  [[nodiscard]] std::uint64_t unreadable() const noexcept { return unreadable_; } ///< values not numbers
  [[nodiscard]] const std::vector<node_time>& nodes() const noexcept { return nodes_; }
  [[nodiscard]] const std::string& name() const noexcept { return name_; }

private:
  void count(std::uint64_t n, const fact& f);
  void keep(std::uint64_t n, double v);

  std::string name_, fact_, field_;
  std::size_t bound_;
  std::size_t every_ = 1;
  series values_;
  std::optional<double> last_;
  std::uint64_t begun_ = 0, finished_ = 0, broke_ = 0, facts_ = 0, unreadable_ = 0;
  bool seen_forward_ = false;
  std::uint64_t current_id_ = 0; ///< the forward id that began last
  std::uint64_t current_n_ = 0;  ///< and its number
  std::vector<std::pair<std::uint64_t, std::uint64_t>> recent_; ///< id -> number, for overlaps
  std::vector<node_time> nodes_;
};

} // namespace soma::draw

SOMA_API_END
