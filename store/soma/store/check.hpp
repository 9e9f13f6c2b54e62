#pragma once

/// @file
/// soma::check: walks every entry of a store and says which are damaged,
/// changing nothing (`soma check`, docs/store.md "Damage").

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "soma/export.hpp"
#include "soma/store/store.hpp"

SOMA_API_BEGIN

namespace soma {

/// One damaged entry, or a part of the store that could not be walked.
struct damage {
  std::string database; ///< records, facts, meta, readings, cache, cache_age, or the file
  std::string key;      ///< the entry's key, printable (`run/ID/N` for a run's); empty for a database
  std::string what;     ///< what is wrong with it
};

/// What a check found.
struct check_report {
  std::size_t entries = 0;      ///< entries read
  std::vector<damage> damaged;  ///< in the order found
  bool complete = true;         ///< false: stopped before the end (check_progress said so)
};

/// Told how far a check is, every few thousand entries and at its end:
/// entries read so far, and how many the store held when it began (LMDB's
/// count). Returning false stops the check; its report then says so.
using check_progress = std::function<bool(std::size_t entries, std::size_t total)>;

/// Reads every entry of every database of `s` in one read transaction and
/// checks it: each value's checksum and encoding, each key's form, that a
/// run's records are numbered 0 .. next - 1 and each has its fact blob, that
/// the summary its metadata keeps (run_meta::totals) adds up to them, that
/// every database holds as many entries as LMDB counts, and that every kept
/// output has its place in the age index. Cost: one scan of the whole store.
/// Throws store_error only when the store cannot be opened or read at all.
[[nodiscard]] check_report check(const store& s);

/// The same, telling `progress` how far it is. A served store is checked
/// where it is, and asked how far it is four times a second; a check whose
/// client goes is stopped there (docs/fleet.md).
[[nodiscard]] check_report check(const store& s, const check_progress& progress);

} // namespace soma

SOMA_API_END
