#include "soma/store/detail/numbering.hpp"

#include <functional>
#include <optional>
#include <string>

#include "soma/store/detail/environment.hpp"
#include "soma/store/keys.hpp"

namespace soma::detail {

run_meta meta_of(const environment& env, MDB_txn* txn, MDB_dbi meta, std::string_view run) {
  std::string_view bytes;
  auto key = meta_key(run);
  if (!env.get(txn, meta, key, bytes))
    return {};
  auto what = "the metadata of run '" + std::string{run} + "'";
  return decode_run_meta(key, bytes, origin{what, {}, 0, env.path()});
}

run_words words_of(const environment& env, MDB_txn* txn, MDB_dbi meta, std::string_view run) {
  std::string_view bytes;
  auto key = words_key(run);
  if (meta == 0 || !env.get(txn, meta, key, bytes))
    return {};
  auto what = "the words of run '" + std::string{run} + "'";
  return decode_run_words(key, bytes, origin{what, {}, 0, env.path()});
}

void no_run_or_damage(const environment& env, std::string_view run) {
  std::optional<std::uint64_t> next;
  env.read([&](MDB_txn* txn, const std::function<MDB_dbi(db)>& dbi) {
    if (auto meta = dbi(db::meta))
      next = meta_of(env, txn, meta, run).next;
  });
  if (next && *next > 0)
    env.damaged("run '" + std::string{run} + "' has " + std::to_string(*next)
                + " forwards written (its metadata says), but none of its records can be found");
  throw no_run_error("no run '" + std::string{run} + "' in the store '" + env.path()
                     + "'; `soma runs` lists the runs it holds");
}

namespace {

[[noreturn]] void missing(const environment& env, std::string_view run, std::string_view what,
                          std::uint64_t next, const std::string& found) {
  env.damaged("run '" + std::string{run} + "' has " + std::to_string(next)
              + " forwards written (its metadata says), but " + found + " of its "
              + std::string{what} + ": some are missing or were moved");
}

} // namespace

void check_count(const environment& env, MDB_txn* txn, MDB_dbi meta, std::string_view run,
                 std::string_view what, std::uint64_t seen, std::uint64_t last_plus_one) {
  auto m = meta_of(env, txn, meta, run);
  if (!m.next || (*m.next == 0 && seen == 0))
    return;
  if (seen != *m.next || last_plus_one != *m.next)
    missing(env, run, what, *m.next,
            seen == 0 ? std::string{"none was found"}
                      : std::to_string(seen) + " were found, the last numbered "
                          + std::to_string(last_plus_one - 1));
}

void check_tail(const environment& env, MDB_txn* txn, MDB_dbi meta, std::string_view run,
                std::string_view what, std::uint64_t seen, std::uint64_t newest, bool whole) {
  auto m = meta_of(env, txn, meta, run);
  if (!m.next || (*m.next == 0 && seen == 0))
    return;
  if (seen == 0 || newest + 1 != *m.next || seen > *m.next || (whole && seen != *m.next))
    missing(env, run, what, *m.next,
            seen == 0 ? std::string{"none was found"}
                      : "the newest found is numbered " + std::to_string(newest));
}

} // namespace soma::detail
