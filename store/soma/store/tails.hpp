#pragma once

/// @file
/// soma::tails: every run's last forwards as of a moment, in one read. What
/// judging runs needs (soma/health/), at a price that does not grow with a
/// run's length: per run, a seek to its end (and, with `at`, a binary search
/// on its forwards' times), then `last` records and, when asked, their fact
/// blobs.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "soma/export.hpp"
#include "soma/fact.hpp"
#include "soma/record.hpp"
#include "soma/store/store.hpp"

SOMA_API_BEGIN

namespace soma {

/// A run's last forwards up to a moment.
struct run_tail {
  std::string run;
  std::int64_t first = 0;              ///< unix seconds of its first forward
  std::optional<std::int64_t> ended_us; ///< when its recorder closed (run_meta::ended_us), now
  std::vector<record> records;         ///< its last forwards, oldest first
  /// The fact blobs of the last tail_options::facts of them, oldest first.
  std::vector<std::vector<fact>> facts;

  /// The facts of records[i]; nullptr when its blob was not read.
  [[nodiscard]] const std::vector<fact>* facts_of(std::size_t i) const noexcept {
    auto first = records.size() - facts.size();
    return i >= first && i < records.size() ? &facts[i - first] : nullptr;
  }
};

struct tail_options {
  std::size_t last = 100;          ///< forwards per run, at most
  std::optional<std::int64_t> at;  ///< unix seconds: only forwards whose `when` is at or before it
  std::size_t facts = 0;           ///< read the fact blobs of the last this many too (a fetch each)
  std::optional<std::string> run;  ///< only this run (store_error if the store has none)
  std::optional<std::uint64_t> before; ///< only forwards numbered below it (with `run`: the
                                       ///< rest of a tail that came in parts)
};

/// Each run's tail, in key order; runs with no forward by `at` are left out.
/// One read transaction. Throws store_error for damaged bytes (a tail whose
/// numbers skip, a record without its fact blob) or an unknown `run`.
[[nodiscard]] std::vector<run_tail> tails(const store& s, const tail_options& options = {});

} // namespace soma

SOMA_API_END
