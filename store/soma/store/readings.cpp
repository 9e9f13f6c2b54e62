#include "soma/store/readings.hpp"
#include "soma/store/standing.hpp"

#include <algorithm>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>

#include "soma/detail/seal.hpp"
#include "soma/detail/undecodable.hpp"
#include "soma/store/backend.hpp"
#include "soma/store/detail/cursor.hpp"
#include "soma/store/detail/environment.hpp"
#include "soma/store/detail/local_answers.hpp"
#include "soma/store/detail/readings_at.hpp"
#include "soma/store/detail/write_group.hpp"
#include "soma/store/keys.hpp"
#include "soma/wire/reading.hpp"
#include "soma/store/detail/key_bytes.hpp"

namespace soma {

namespace {

using detail::db;

const std::string latest_prefix = "latest/";
const std::string history_prefix = "r/";

std::string history_of(const std::string& id) { return history_prefix + id + "/"; }

// The reading in Cap'n Proto bytes (as the wire carries it too).
reading decode_payload(std::string_view bytes, const std::string& store_path) {
  auto damaged = [&](const std::string& why) {
    return store_error("a machine reading in the store '" + store_path + "' is damaged (" + why
                       + "); the writer rewrites it with its next reading", store_trouble::damaged);
  };
  try {
    return wire::decode_reading(bytes);
  } catch (const detail::undecodable& e) {
    throw damaged(e.what());
  }
}

// The reading stored at `key`: sealed (format 2) or not (format 1).
reading decode(std::string_view key, std::string_view bytes, const std::string& store_path) {
  std::string_view payload;
  switch (detail::unseal(key, bytes, detail::sealed_kind::reading, payload)) {
    case detail::seal_state::unsealed:
    case detail::seal_state::ok: return decode_payload(payload, store_path);
    case detail::seal_state::newer:
      throw store_error("a machine reading in the store '" + store_path
                        + "' was written by a newer soma, which this one cannot read");
    default:
      throw store_error("a machine reading in the store '" + store_path + "' (at '"
                        + std::string{key.substr(0, key.find('/', 2))}
                        + "') is damaged: its checksum does not match its bytes; the writer "
                          "rewrites it with its next reading", store_trouble::damaged);
  }
}

// How many machines have a latest reading, kept beside them so that a
// reading damage hid from `standing` shows (formats.md).
const std::string count_key = "count/latest";

void put_count(const detail::environment& env, MDB_txn* txn, MDB_dbi d, std::size_t n) {
  std::string payload = detail::be64(n);
  env.put(txn, d, count_key, detail::sealed(count_key, detail::sealed_kind::machines, payload));
}

// The count put_count kept; none in a store of format 1.
std::optional<std::uint64_t> count_of(const detail::environment& env, MDB_txn* txn, MDB_dbi d) {
  std::string_view bytes, payload;
  if (!env.get(txn, d, count_key, bytes))
    return std::nullopt;
  if (detail::unseal(count_key, bytes, detail::sealed_kind::machines, payload)
        != detail::seal_state::ok
      || payload.size() != 8)
    env.damaged("the count of machines with a reading is damaged");
  return detail::from_be64(payload);
}

// Calls f(key, value) for every entry under `prefix`, in key order.
void scan(MDB_txn* txn, MDB_dbi dbi, const detail::environment& env, const std::string& prefix,
          const std::function<void(std::string_view, std::string_view)>& f) {
  detail::cursor c{env, txn, dbi};
  for (bool ok = c.move(MDB_SET_RANGE, prefix); ok && c.key().starts_with(prefix);
       ok = c.move(MDB_NEXT))
    f(c.key(), c.value());
}

// Deletes all but the newest kept_per_machine entries under `prefix`.
void trim(MDB_txn* txn, MDB_dbi dbi, const detail::environment& env, const std::string& prefix) {
  detail::cursor c{env, txn, dbi};
  auto past = prefix;
  past.back() = static_cast<char>('/' + 1); // the first key after the prefix
  bool ok = c.move(MDB_SET_RANGE, past) ? c.move(MDB_PREV) : c.move(MDB_LAST);
  std::size_t seen = 0;
  while (ok && c.key().starts_with(prefix)) {
    if (++seen > kept_per_machine)
      c.del(); // after a delete, MDB_PREV goes on to the entry before the deleted one
    ok = c.move(MDB_PREV);
  }
}

} // namespace

reading detail::decode_reading(std::string_view bytes, const std::string& where) {
  return decode_payload(bytes, where);
}

reading detail::decode_stored_reading(std::string_view key, std::string_view bytes,
                                      const std::string& where) {
  return decode(key, bytes, where);
}

void detail::check_reading_id(const reading& r) {
  if (r.id.empty() || r.id.size() > 200 || r.id.find('/') != std::string::npos)
    throw store_error("a machine id is 1 to 200 bytes without '/', not '" + r.id + "'",
                      store_trouble::invalid);
}

void put_reading(store& s, const reading& r) {
  detail::check_reading_id(r);
  s.backend().put_reading(r);
}

namespace {

// Writes `r` in `txn`, and when `trimming` keeps its machine's newest
// kept_per_machine (a walk back over them); true when the machine had no
// latest reading before.
bool put_one(const detail::environment& env, MDB_txn* txn, MDB_dbi d, const reading& r,
             bool trimming = true) {
  auto bytes = wire::encode_reading(r);
  auto mine = history_of(r.id);
  auto at = mine + detail::be64(static_cast<std::uint64_t>(r.when_us));
  env.put(txn, d, at, detail::sealed(at, detail::sealed_kind::reading, bytes));
  auto latest = latest_prefix + r.id;
  std::string_view before;
  bool added = !env.get(txn, d, latest, before);
  env.put(txn, d, latest, detail::sealed(latest, detail::sealed_kind::reading, bytes));
  // Keep the newest kept_per_machine of this machine: walk back from the
  // newest over that many, then delete what is older (usually one).
  if (trimming)
    trim(txn, d, env, mine);
  return added;
}

// Forgets, in `txn`, machines far behind the fleet: against the lower
// median of every machine's newest reading, so that no single clock,
// however wrong, can make the others look a day old. Keeps the count of
// machines; returns how many were forgotten. One scan of every machine's
// latest reading.
std::size_t forget_stale(const detail::environment& env, MDB_txn* txn, MDB_dbi d) {
  std::vector<std::pair<std::string, std::int64_t>> newest;
  std::size_t machines = 0;
  scan(txn, d, env, latest_prefix, [&](std::string_view k, std::string_view v) {
    ++machines;
    try {
      newest.emplace_back(std::string{k.substr(latest_prefix.size())}, decode(k, v, env.path()).when_us);
    } catch (const store_error&) {
      // A damaged entry is left for its writer to rewrite; it stops nobody.
    }
  });
  std::vector<std::int64_t> whens;
  for (auto& [id, when] : newest)
    whens.push_back(when);
  std::vector<std::string> gone;
  if (!whens.empty()) {
    std::sort(whens.begin(), whens.end());
    auto median = whens[(whens.size() - 1) / 2];
    for (auto& [id, when] : newest)
      if (when + forgotten_after_us < median)
        gone.push_back(id);
  }
  for (auto& id : gone) {
    std::vector<std::string> keys;
    scan(txn, d, env, history_of(id), [&](std::string_view k, std::string_view) { keys.emplace_back(k); });
    for (auto& k : keys)
      env.del(txn, d, k);
    env.del(txn, d, latest_prefix + id);
  }
  put_count(env, txn, d, machines - gone.size());
  return gone.size();
}

} // namespace

void detail::put_reading_at(environment& env, const reading& r) {
  env.write([&](MDB_txn* txn, const std::function<MDB_dbi(db)>& dbi) {
    auto d = dbi(db::readings);
    put_one(env, txn, d, r);
    forget_stale(env, txn, d);
  });
}

namespace {

// What put_readings_at writes, in `txn`.
void put_readings_in(detail::environment& env, MDB_txn* txn,
                     const std::function<MDB_dbi(detail::db)>& dbi, const std::vector<reading>& rs,
                     const std::vector<bool>& trim) {
  auto d = dbi(detail::db::readings);
  std::size_t added = 0;
  for (std::size_t i = 0; i < rs.size(); ++i)
    added += put_one(env, txn, d, rs[i], trim.empty() || trim[i]) ? 1 : 0;
  if (added == 0)
    return;
  // The count of machines moves by those new to the store; a store
  // that keeps none yet (format 1) or a damaged one is counted afresh.
  std::optional<std::uint64_t> before;
  try {
    before = count_of(env, txn, d);
  } catch (const store_error&) {
  }
  if (before)
    put_count(env, txn, d, *before + added);
  else
    forget_stale(env, txn, d);
}

} // namespace

void detail::put_readings_at(environment& env, const std::vector<reading>& rs,
                             const std::vector<bool>& trim) {
  if (rs.empty())
    return;
  env.write(
    [&](MDB_txn* txn, const std::function<MDB_dbi(db)>& dbi) {
      put_readings_in(env, txn, dbi, rs, trim);
    },
    environment::commit::expendable);
}

std::unique_ptr<detail::group_part>
detail::readings_part(environment& env, const std::vector<reading>& rs,
                      const std::vector<bool>& trim, std::function<void(const store_error*)> done) {
  return detail::part_of(
    [&env, &rs, &trim](MDB_txn* txn, const std::function<MDB_dbi(detail::db)>& dbi) {
      put_readings_in(env, txn, dbi, rs, trim);
    },
    std::move(done), false);
}

std::size_t detail::forget_stale_machines(environment& env) {
  std::size_t gone = 0;
  env.write([&](MDB_txn* txn, const std::function<MDB_dbi(db)>& dbi) {
    gone = forget_stale(env, txn, dbi(db::readings));
  });
  return gone;
}

std::map<std::string, std::int64_t> detail::latest_whens(const environment& env, MDB_txn* txn,
                                                        unsigned dbi) {
  std::map<std::string, std::int64_t> out;
  scan(txn, dbi, env, latest_prefix, [&](std::string_view k, std::string_view v) {
    try {
      out.emplace(std::string{k.substr(latest_prefix.size())}, decode(k, v, env.path()).when_us);
    } catch (const store_error&) {
      // A damaged reading is its writer's to rewrite; `soma check` lists it.
    }
  });
  return out;
}

std::vector<reading> readings(const store& s, const std::string& id) {
  std::vector<reading> out;
  for (;;) {
    auto part = s.backend().ask().readings(
      id, out.empty() ? std::nullopt : std::optional{out.back().when_us}, detail::rows_per_part);
    auto full = part.size() >= detail::rows_per_part;
    out.insert(out.end(), std::make_move_iterator(part.begin()), std::make_move_iterator(part.end()));
    if (!full)
      return out;
  }
}

void readings_back(const store& s, std::int64_t at_us,
                   const std::function<bool(const std::string& id, const reading& r)>& more) {
  if (at_us < 0)
    return; // before 1970: nothing was written by then
  auto& ask = s.backend().ask();
  // A few of every machine's first, in parts of many machines: most walks
  // back stop after one or two, and a fleet costs round trips by its bytes,
  // not one per machine. A walk that wants more goes on by itself.
  constexpr std::size_t first_few = 4;
  std::optional<std::string> after;
  do {
    auto part = ask.readings_back_all(at_us, first_few, after);
    for (auto& [id, rs] : part.machines) {
      bool going = true;
      for (auto& r : rs)
        if (!(going = more(id, r)))
          break;
      auto from = rs.empty() ? 0 : rs.back().when_us - 1;
      if (!going || rs.size() < first_few || from < 0)
        continue;
      for (;;) {
        auto older = ask.readings_back(id, from, detail::rows_per_part);
        for (auto& r : older)
          if (!(going = more(id, r)))
            break;
        if (!going || older.size() < detail::rows_per_part || older.back().when_us <= 0)
          break;
        from = older.back().when_us - 1;
      }
    }
    after = std::move(part.after);
  } while (after);
}

std::vector<std::pair<std::string, reading>>
detail::local_answers::standing(const std::optional<std::string>& after, std::size_t count) {
  count = std::min(count, rows_per_part);
  std::vector<std::pair<std::string, reading>> out;
  auto& env = env_;
  env.read([&](MDB_txn* txn, const std::function<MDB_dbi(db)>& dbi) {
    auto d = dbi(db::readings);
    detail::cursor c{env, txn, d};
    for (bool ok = c.move(MDB_SET_RANGE, after ? latest_prefix + *after + '\0' : latest_prefix);
         ok && c.key().starts_with(latest_prefix) && out.size() < count; ok = c.move(MDB_NEXT))
      out.emplace_back(std::string{c.key().substr(latest_prefix.size())},
                       decode(c.key(), c.value(), env.path()));
    // The whole standing read at once: it must be as many as the count says.
    if (!after && out.size() < count)
      if (auto n = count_of(env, txn, d); n && *n != out.size())
        env.damaged(std::to_string(*n) + " machines have a reading (the store's count says), but "
                    + std::to_string(out.size()) + " were found: some are missing or were moved");
  });
  return out;
}

std::vector<reading> detail::local_answers::readings(const std::string& id,
                                                     std::optional<std::int64_t> after_us,
                                                     std::size_t count) {
  count = std::min(count, rows_per_part);
  std::vector<reading> out;
  auto& env = env_;
  auto mine = history_of(id);
  env.read([&](MDB_txn* txn, const std::function<MDB_dbi(db)>& dbi) {
    detail::cursor c{env, txn, dbi(db::readings)};
    auto from = after_us ? mine + detail::be64(static_cast<std::uint64_t>(*after_us) + 1) : mine;
    for (bool ok = c.move(MDB_SET_RANGE, from); ok && c.key().starts_with(mine) && out.size() < count;
         ok = c.move(MDB_NEXT))
      out.push_back(decode(c.key(), c.value(), env.path()));
  });
  return out;
}

std::vector<reading> detail::local_answers::readings_back(const std::string& id, std::int64_t at_us,
                                                          std::size_t count) {
  count = std::min(count, rows_per_part);
  std::vector<reading> out;
  if (at_us < 0)
    return out;
  auto& env = env_;
  auto mine = history_of(id);
  env.read([&](MDB_txn* txn, const std::function<MDB_dbi(db)>& dbi) {
    detail::cursor c{env, txn, dbi(db::readings)};
    // The first key after the moment, then back.
    auto after = at_us == std::numeric_limits<std::int64_t>::max()
                   ? mine.substr(0, mine.size() - 1) + static_cast<char>('/' + 1)
                   : mine + detail::be64(static_cast<std::uint64_t>(at_us) + 1);
    bool ok = c.move(MDB_SET_RANGE, after) ? c.move(MDB_PREV) : c.move(MDB_LAST);
    for (; ok && c.key().starts_with(mine) && out.size() < count; ok = c.move(MDB_PREV))
      out.push_back(decode(c.key(), c.value(), env.path()));
  });
  return out;
}

detail::machines_back_part detail::local_answers::readings_back_all(
  std::int64_t at_us, std::size_t per_machine, const std::optional<std::string>& after) {
  per_machine = std::clamp<std::size_t>(per_machine, 1, back_per_machine_cap);
  machines_back_part out;
  if (at_us < 0)
    return out;
  auto& env = env_;
  env.read([&](MDB_txn* txn, const std::function<MDB_dbi(db)>& dbi) {
    auto d = dbi(db::readings);
    detail::cursor ids{env, txn, d};
    detail::cursor back{env, txn, d};
    std::size_t readings = 0, bytes = 0;
    std::string last; // the last machine looked at: where the next part goes on
    for (bool ok = ids.move(MDB_SET_RANGE, after ? latest_prefix + *after + '\0' : latest_prefix);
         ok && ids.key().starts_with(latest_prefix); ok = ids.move(MDB_NEXT)) {
      std::string id{ids.key().substr(latest_prefix.size())};
      if (readings >= readings_per_back_part || bytes >= bytes_per_back_part) {
        out.after = std::move(last); // a machine is left
        break;
      }
      last = id;
      auto mine = history_of(id);
      auto next = at_us == std::numeric_limits<std::int64_t>::max()
                    ? mine.substr(0, mine.size() - 1) + static_cast<char>('/' + 1)
                    : mine + detail::be64(static_cast<std::uint64_t>(at_us) + 1);
      std::vector<reading> rs;
      bool at = back.move(MDB_SET_RANGE, next) ? back.move(MDB_PREV) : back.move(MDB_LAST);
      for (; at && back.key().starts_with(mine) && rs.size() < per_machine; at = back.move(MDB_PREV)) {
        bytes += back.value().size();
        rs.push_back(decode(back.key(), back.value(), env.path()));
      }
      readings += rs.size();
      if (!rs.empty())
        out.machines.emplace_back(std::move(id), std::move(rs));
    }
  });
  return out;
}

} // namespace soma
