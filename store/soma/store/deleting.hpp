#pragma once

/// @file
/// soma::delete_run: taking runs out of a store for good.

#include <cstdint>
#include <string_view>

#include "soma/export.hpp"
#include "soma/store/store.hpp"

SOMA_API_BEGIN

namespace soma {

/// Deletes run `run` from `s`: every record, every fact blob and its
/// metadata, in one write transaction (all of it, or nothing). What else
/// the store holds is untouched, so `soma check` finds it sound; a trial
/// that recorded into the run still names it. Returns how many forwards it
/// held. Throws store_error: `missing` for a run the store does not have,
/// `invalid` for a run id that cannot be one, `failed` for a store opened
/// read-only or served from another machine (delete where the store is).
std::uint64_t delete_run(store& s, std::string_view run);

} // namespace soma

SOMA_API_END
