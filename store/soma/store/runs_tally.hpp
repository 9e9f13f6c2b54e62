#pragma once

/// @file
/// soma::runs_tally: runs(s), asked again only when the store moved. For a
/// program that shows a store's runs again and again while recorders write
/// (soma serve's runs page, its live stream and /metrics). runs() itself
/// costs the number of runs (each run's summary is kept beside its records
/// by the writer); a look at a store that has not moved costs one question
/// (its last transaction), a round trip for a served store.

#include <cstdint>
#include <mutex>
#include <optional>
#include <vector>

#include "soma/export.hpp"
#include "soma/store/readers.hpp"
#include "soma/store/store.hpp"

SOMA_API_BEGIN

namespace soma {

/// The runs of one store, what runs() answers, kept until the store moves
/// or while a run stands running (a writer that dies writes nothing, and
/// its run must come to stand died).
/// Safe to call from any thread (one look at a time).
class runs_tally {
public:
  explicit runs_tally(store s);

  /// What runs(s) answers now. Throws what runs() throws; the tally then
  /// stays as it was.
  [[nodiscard]] std::vector<run_row> rows();

private:
  store store_;
  std::mutex mutex_;
  std::optional<std::uint64_t> txn_; ///< the store's transaction at the last look (none: never looked)
  std::vector<run_row> rows_;
};

} // namespace soma

SOMA_API_END
