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
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "soma/reading.hpp"
#include "soma/store/store.hpp"

struct MDB_txn;

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

namespace detail {

/// Decodes a reading; throws store_error naming `where` when damaged.
[[nodiscard]] reading decode_reading(std::string_view bytes, const std::string& where);

class environment;
class group_part;

/// Throws store_error (`invalid`) unless `r`'s machine id is 1 to 200
/// bytes without '/'.
void check_reading_id(const reading& r);

/// put_reading into a store on this host (its local backend); the reading's
/// id is checked by put_reading.
void put_reading_at(environment& env, const reading& r);

/// Writes readings `rs` (ids checked) in one write transaction, committed
/// as expendable (environment::commit): what a served store's server does
/// with the readings that arrived while it wrote the last ones (group
/// commit). Its cost is that of the readings, not of the machines the
/// store holds: stale machines are forgotten by forget_stale_machines, not
/// here. `trim[i]` says whether reading i's machine is trimmed to its
/// newest kept_per_machine now (a walk back over them, the cost that grows
/// with what a machine keeps); empty: every one is.
void put_readings_at(environment& env, const std::vector<reading>& rs,
                     const std::vector<bool>& trim = {});

/// put_readings_at's work as one part of a group written in one
/// transaction (soma/store/detail/write_group.hpp): expendable, unless a
/// durable part shares the transaction. `done` hears nullptr once it was
/// committed, else why not. `rs` and `trim` must outlive the part.
[[nodiscard]] std::unique_ptr<group_part>
readings_part(environment& env, const std::vector<reading>& rs, const std::vector<bool>& trim,
              std::function<void(const store_error*)> done);

/// Forgets machines forgotten_after_us behind the lower median of all
/// machines' newest readings (put_reading does so with every reading), in a
/// write transaction of its own; returns how many. One scan of every
/// machine's latest reading: a served store's server does it once a tick.
std::size_t forget_stale_machines(environment& env);

/// Decodes the reading stored at `key` (sealed, or of format 1); throws
/// store_error naming the store `where` when damaged.
[[nodiscard]] reading decode_stored_reading(std::string_view key, std::string_view bytes,
                                            const std::string& where);

/// Each machine's latest reading's when_us, read in `txn` (of `env`, its
/// readings database `dbi`); entries damage hid are left out.
[[nodiscard]] std::map<std::string, std::int64_t> latest_whens(const environment& env,
                                                               MDB_txn* txn, unsigned dbi);

} // namespace detail

} // namespace soma
