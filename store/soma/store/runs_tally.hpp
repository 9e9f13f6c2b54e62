#pragma once

/// @file
/// soma::runs_tally: runs(s), kept current by reading only what was written
/// since the last look. For a program that shows a store's runs again and
/// again while recorders write (soma serve's runs page, its live stream and
/// /metrics), where one scan of every record each time costs 65-115 ms for
/// 460,101 records (bench_serve row i), seconds for ten million at that rate.

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "soma/store/readers.hpp"
#include "soma/store/store.hpp"

namespace soma {

/// The runs of one store, what runs() answers, tallied once and then kept.
/// Safe to call from any thread (one look at a time).
class runs_tally {
public:
  explicit runs_tally(store s);

  /// What runs(s) answers now: the same rows, in the same order, from one
  /// read transaction.
  ///
  /// Costs: the first look is one scan of all records, as runs() is. Later
  /// ones cost nothing when the store has not moved, else a seek per run to
  /// its last record, and for a run that grew a seek to where the tally left
  /// it and the records written since. A run whose last record read changed
  /// (rewritten with overwrite) or that shrank is read again whole.
  ///
  /// Damage is found in what it reads (a record that does not decode, a
  /// number missing from a run, a run shorter than its metadata says) and
  /// thrown as runs() throws it: a store_error whose trouble is `damaged`;
  /// the tally then stays as it was. Records it read before are not read
  /// again, so damage that comes to them later, or takes one of them away
  /// (a recorder never deletes one), is `soma check`'s to find.
  [[nodiscard]] std::vector<run_row> rows();

private:
  struct kept {
    run_row row;
    std::uint64_t next = 0; ///< the number after the last forward counted
    std::string last;       ///< the bytes of that forward's record
  };

  store store_;
  std::mutex mutex_;
  std::weak_ptr<detail::environment> read_; ///< what the last look read (none: never looked)
  std::uint64_t txn_ = 0;  ///< its transaction then
  std::vector<std::string> order_; ///< the runs, in key order, at the last look
  std::map<std::string, kept, std::less<>> runs_;
};

} // namespace soma
