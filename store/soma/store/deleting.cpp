#include "soma/store/deleting.hpp"

#include <string>

#include "soma/store/detail/cursor.hpp"
#include "soma/store/detail/environment.hpp"
#include "soma/store/detail/numbering.hpp"
#include "soma/store/keys.hpp"
#include "soma/store/readers.hpp"

namespace soma {

std::uint64_t delete_run(store& s, std::string_view run) {
  if (auto ok = check_run_id(run); !ok)
    throw store_error("cannot delete a run named so: " + describe(ok.error()), store_trouble::invalid);
  auto& env = s.env();
  std::uint64_t forwards = 0;
  bool found = false;
  env.write([&](MDB_txn* txn, auto& dbi) {
    forwards = 0;
    found = false;
    auto prefix = detail::run_prefix(run);
    for (auto which : {detail::db::records, detail::db::facts}) {
      detail::cursor c{env, txn, dbi(which)};
      while (c.move(MDB_SET_RANGE, prefix) && c.key().starts_with(prefix)) {
        c.del();
        if (which == detail::db::records)
          ++forwards;
        found = true;
      }
    }
    auto meta = dbi(detail::db::meta);
    auto key = detail::meta_key(run);
    std::string_view bytes;
    if (env.get(txn, meta, key, bytes)) {
      env.del(txn, meta, key);
      found = true;
    }
    if (auto words = detail::words_key(run); env.get(txn, meta, words, bytes))
      env.del(txn, meta, words);
  });
  if (!found)
    detail::no_run_or_damage(env, run);
  return forwards;
}

} // namespace soma
