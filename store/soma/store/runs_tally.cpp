#include "soma/store/runs_tally.hpp"

#include "soma/store/answers.hpp"
#include "soma/store/backend.hpp"

namespace soma {

runs_tally::runs_tally(store s) : store_(std::move(s)) {}

std::vector<run_row> runs_tally::rows() {
  std::lock_guard one_look_at_a_time{mutex_};
  // Asked before the runs: a commit in between makes the next look ask again.
  auto txn = store_.backend().ask().version();
  if (!txn_ || *txn_ != txn) {
    rows_ = runs(store_);
    txn_ = txn;
  }
  return rows_;
}

} // namespace soma
