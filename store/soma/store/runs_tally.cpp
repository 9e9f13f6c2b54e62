#include "soma/store/runs_tally.hpp"

#include <algorithm>

#include "soma/store/answers.hpp"
#include "soma/store/backend.hpp"

namespace soma {

runs_tally::runs_tally(store s) : store_(std::move(s)) {}

std::vector<run_row> runs_tally::rows() {
  std::lock_guard one_look_at_a_time{mutex_};
  // Asked before the runs: a commit in between makes the next look ask again.
  auto txn = store_.backend().ask().version();
  // A run that stands running is judged again even in a still store: its
  // writer may have died since, which writes nothing.
  auto running = std::any_of(rows_.begin(), rows_.end(),
                             [](const run_row& r) { return r.status == run_status::running; });
  if (!txn_ || *txn_ != txn || running) {
    rows_ = runs(store_);
    txn_ = txn;
  }
  return rows_;
}

} // namespace soma
