#pragma once

/// @file
/// Machine readings: what a worker writes about itself into a store on its
/// own clock (`soma-node --store S --reporting SECONDS`), kept and read back.
/// Each machine's latest is its standing (soma/store/standing.hpp).
///
/// Readings go to the store and not down a connection: a client only reads
/// its socket while a job is in flight, so an idle worker's connection is
/// one nobody reads. The idle machine, the one most worth seeing, would
/// otherwise not be there at all.
///
/// Retention: a store keeps the newest `kept_per_machine` readings of each
/// machine (a served store's server trims a machine every
/// `trim_every_served` readings it writes for it, so between two trims it
/// may keep up to that many more). It drops a machine entirely once its newest reading is
/// `forgotten_after_us` behind the lower median of all machines' newest
/// readings (so one machine with a clock a day fast cannot make the others
/// look dead). Both rules are applied by the writer as it writes. 100 workers reporting every 0.5 s for
/// a day hold at most 100 × 600 readings of about 150 bytes each (about 9 MB).

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "soma/export.hpp"
#include "soma/reading.hpp"
#include "soma/store/store.hpp"

SOMA_API_BEGIN

namespace soma {

/// How many readings of one machine a store keeps (the newest).
inline constexpr std::size_t kept_per_machine = 600;

/// A served store's server trims a machine's readings on the first it
/// writes for it, then on every this many: trimming walks back over the
/// readings a machine keeps, so a served store's cost per reading stays
/// that of the reading.
inline constexpr std::size_t trim_every_served = 64;

/// A machine whose newest reading is this far (24 h) behind the lower median
/// of all machines' newest readings is dropped with all its readings.
inline constexpr std::int64_t forgotten_after_us = 24LL * 3600 * 1000 * 1000;

/// Writes `r` durably and applies the retention rules. Throws store_error.
void put_reading(store& s, const reading& r);

/// Every reading kept of machine `id`, oldest first. One scan of its readings.
[[nodiscard]] std::vector<reading> readings(const store& s, const std::string& id);

/// Walks back through every machine's kept readings: for each machine with
/// a latest reading, in id order, calls `more(id, r)` on its readings
/// written at or before `at_us` (the writer's clock), newest first, until
/// `more` returns false. One read transaction; its price is what `more`
/// asks for, a seek per machine and a decode per reading seen.
void readings_back(const store& s, std::int64_t at_us,
                   const std::function<bool(const std::string& id, const reading& r)>& more);

} // namespace soma

SOMA_API_END
