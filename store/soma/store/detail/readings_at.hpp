#pragma once

/// @file
/// Machine readings in a store on this host: what the local backend and a
/// served store's server call (soma/store/readings.hpp has the calls users
/// make).

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <lmdb.h>

#include "soma/reading.hpp"
#include "soma/store/store.hpp"

namespace soma::detail {

/// Decodes a reading; throws store_error naming `where` when damaged.
[[nodiscard]] reading decode_reading(std::string_view bytes,
                                     const std::string& where);

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

} // namespace soma::detail
