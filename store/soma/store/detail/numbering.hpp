#pragma once

/// @file
/// A run's forwards are numbered 0 .. next - 1 with none missing, and its
/// metadata keeps `next` (formats.md, RunMeta). Readers compare what they
/// found with it, so that damage which hides entries from a scan is an
/// error naming the store, never a shorter run.

#include <cstdint>
#include <string_view>

#include <lmdb.h>

#include "soma/store/detail/record.hpp"

namespace soma::detail {

class environment;

/// The run's metadata; empty when it has none.
[[nodiscard]] run_meta meta_of(const environment& env, MDB_txn* txn, MDB_dbi meta,
                               std::string_view run);

/// The run's words (format 4); none when it has none (a run an older soma
/// wrote). Throws store_error when they are damaged.
[[nodiscard]] run_words words_of(const environment& env, MDB_txn* txn, MDB_dbi meta,
                                 std::string_view run);

/// Throws no_run_error naming `run`, which a reader did not find, or, when
/// the run's metadata says it has forwards written, store_error (damaged):
/// its records are there but cannot be found (a key damaged out of its
/// order in a page hides the keys beside it). One short read transaction.
[[noreturn]] void no_run_or_damage(const environment& env, std::string_view run);

/// Throws store_error (damaged) unless a scan that found `seen` of the
/// run's `what` ("records", "fact blobs"), the last numbered
/// `last_plus_one - 1`, found them all. Nothing to compare for a run
/// without `next` (format 1), or a run nobody wrote (then the caller says
/// there is no such run).
void check_count(const environment& env, MDB_txn* txn, MDB_dbi meta, std::string_view run,
                 std::string_view what, std::uint64_t seen, std::uint64_t last_plus_one);

/// The same for a walk back from the run's end that found `seen` entries
/// consecutively, the newest numbered `newest`: they must end at next - 1,
/// and when the walk reached the run's first entry (`whole`), be all of them.
void check_tail(const environment& env, MDB_txn* txn, MDB_dbi meta, std::string_view run,
                std::string_view what, std::uint64_t seen, std::uint64_t newest, bool whole);

} // namespace soma::detail
