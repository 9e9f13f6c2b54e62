#include "soma/store/detail/cursor.hpp"

#include "soma/store/detail/environment.hpp"
#include "soma/store/detail/guard.hpp"

namespace soma::detail {

cursor::cursor(const environment& env, MDB_txn* txn, MDB_dbi dbi) : env_(env) {
  if (dbi == 0)
    return;
  if (int rc = mdb_cursor_open(txn, dbi, &cur_); rc != 0)
    env_.fail(rc, "opening a cursor");
}

cursor::~cursor() {
  if (cur_)
    mdb_cursor_close(cur_);
}

bool cursor::move(MDB_cursor_op op, std::string_view at) {
  if (!cur_)
    return false;
  k_ = val(at);
  int rc = 0;
  auto step = [&] { rc = mdb_cursor_get(cur_, &k_, &v_, op); };
  if (!guarded(step))
    env_.damaged("moving a cursor faulted: LMDB followed a page number or offset out of the file");
  if (rc == MDB_NOTFOUND)
    return false;
  if (rc != 0)
    env_.fail(rc, "moving a cursor");
  // Touch the key and value once under the guard: damage can put them past
  // the file's end, where the first read would fault outside it.
  if (!env_.readable(key()) || !env_.readable(value()))
    env_.damaged("an entry points past the end of the file");
  return true;
}

void cursor::del() {
  int rc = 0;
  auto step = [&] { rc = mdb_cursor_del(cur_, 0); };
  if (!guarded(step))
    env_.damaged("deleting an entry faulted");
  if (rc == MDB_MAP_FULL)
    throw map_full{};
  if (rc != 0)
    env_.fail(rc, "deleting an entry");
}

} // namespace soma::detail
