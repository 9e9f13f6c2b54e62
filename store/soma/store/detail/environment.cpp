#include "soma/store/detail/environment.hpp"

#include <cerrno>
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <chrono>
#include <thread>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <caf/expected.hpp>

#include "soma/error.hpp"
#include "soma/store/detail/guard.hpp"
#include "soma/store/keys.hpp"
#include "soma/store/detail/key_bytes.hpp"

namespace soma::detail {

namespace {

constexpr const char* db_names[db_count] = {"records", "facts", "meta", "cache", "cache_age", "readings", "trials"};

std::string describe(int rc) {
  return mdb_strerror(rc);
}

// LMDB's meta page, at the start of page 0 and page 1, as lmdb 0.9 lays it
// out on a 64-bit machine: a 16-byte page header, then magic, version,
// address, map size, two MDB_db of 48 bytes (the first's md_pad is the page
// size, each ends in its root page), the last page used and the txnid.
struct meta_page {
  std::uint32_t magic = 0, psize = 0;
  std::uint64_t roots[2] = {}, last_pg = 0, txnid = 0;
};

constexpr std::uint32_t lmdb_magic = 0xBEEFC0DE;
constexpr std::uint64_t no_page = ~std::uint64_t{0};

// What check_file() says of a file that is no LMDB data file at all.
constexpr std::string_view not_lmdb = "not an LMDB data file";

template <class T>
T at(const unsigned char* p, std::size_t offset) {
  T x;
  std::memcpy(&x, p + offset, sizeof x);
  return x;
}

meta_page parse_meta(const unsigned char* page) {
  meta_page m;
  m.magic = at<std::uint32_t>(page, 16);
  m.psize = at<std::uint32_t>(page, 40);
  m.roots[0] = at<std::uint64_t>(page, 80);
  m.roots[1] = at<std::uint64_t>(page, 128);
  m.last_pg = at<std::uint64_t>(page, 136);
  m.txnid = at<std::uint64_t>(page, 144);
  return m;
}

std::string bytes_text(std::uint64_t n) {
  return std::to_string(n) + " bytes";
}

// Nothing when data.mdb is sound as LMDB would map it; else an error saying
// what is wrong (error_code::invalid: no LMDB data file at all; damaged: a
// damaged or cut-off one; store_failed: it cannot be looked at). It must be
// as long as its newest meta page says, and its two meta pages must agree
// (LMDB writes them in turn, txnid even to page 0 and odd to page 1, so a
// flipped txnid, which would silently select an older transaction, shows).
// `file` is open; `name` names it in messages.
[[nodiscard]] caf::expected<void> check_file(int fd, const std::string& name) {
  auto damaged = [](std::string why) { return make_error(error_code::damaged, std::move(why)); };
  unsigned char head[160];
  auto got = ::pread(fd, head, sizeof head, 0);
  struct stat st {};
  if (::fstat(fd, &st) != 0)
    return make_error(error_code::store_failed, "cannot stat '" + name + "': " + std::strerror(errno));
  auto size = static_cast<std::uint64_t>(st.st_size);
  if (size == 0)
    return {}; // LMDB makes a new environment in an empty file
  if (got < 20 || at<std::uint32_t>(head, 16) != lmdb_magic)
    return make_error(error_code::invalid, std::string{not_lmdb});
  if (got < static_cast<ssize_t>(sizeof head))
    return damaged("'" + name + "' is " + bytes_text(size) + ", too short to hold LMDB's meta pages");
  auto m0 = parse_meta(head);
  if (m0.magic != lmdb_magic)
    return make_error(error_code::invalid, std::string{not_lmdb});
  auto psize = m0.psize;
  if (psize < 512 || psize > 65536 || (psize & (psize - 1)) != 0)
    return damaged("the first meta page of '" + name + "' is damaged: it gives a page size of "
                   + std::to_string(psize) + " bytes");
  unsigned char second[160];
  if (::pread(fd, second, sizeof second, psize) < static_cast<ssize_t>(sizeof second))
    return damaged("'" + name + "' is " + bytes_text(size) + ", cut off before its second meta page");
  auto m1 = parse_meta(second);
  if (m1.magic != lmdb_magic)
    return damaged("the second meta page of '" + name + "' is damaged (no LMDB magic number)");
  bool agree = (m0.txnid == 0 && m1.txnid == 0)
               || (m0.txnid % 2 == 0 && m1.txnid % 2 == 1
                   && (m0.txnid + 1 == m1.txnid || m1.txnid + 1 == m0.txnid));
  if (!agree)
    return damaged("the meta pages of '" + name + "' are damaged: they name transactions "
                   + std::to_string(m0.txnid) + " and " + std::to_string(m1.txnid)
                   + ", which LMDB never writes together");
  auto& newest = m1.txnid > m0.txnid ? m1 : m0;
  auto needed = (newest.last_pg + 1) * psize;
  if (newest.last_pg == no_page || needed / psize != newest.last_pg + 1)
    return damaged("the newest meta page of '" + name + "' is damaged: its last page is "
                   + std::to_string(newest.last_pg));
  if (size < needed)
    return damaged("'" + name + "' is " + bytes_text(size) + ", shorter than the "
                   + bytes_text(needed)
                   + " its last transaction wrote: it was cut off (a copy made while it was "
                     "written, a full disk, or a truncated file)");
  for (auto root : newest.roots)
    if (root != no_page && root > newest.last_pg)
      return damaged("the newest meta page of '" + name + "' is damaged: a root page ("
                     + std::to_string(root) + ") lies past its last page ("
                     + std::to_string(newest.last_pg) + ")");
  return {};
}

// check_file() with the file opened; a writer in another process may be
// rewriting a meta page as it is read, so a finding must hold three times.
[[nodiscard]] caf::expected<void> check_data_file(const std::string& file) {
  int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return {}; // opening says why
  caf::expected<void> found;
  for (int attempt = 0; attempt < 3; ++attempt) {
    found = check_file(fd, file);
    if (found)
      break;
    std::this_thread::sleep_for(std::chrono::milliseconds{2});
  }
  ::close(fd);
  return found;
}

std::string errno_text(int e) {
  return std::strerror(e);
}

// Throws store_error unless the store at `path` (its data.mdb `data`, its
// lock file `lock`) can be read; returns whether to read it without the
// lock: without write access to lock.mdb (or to the directory, to make
// one), LMDB's MDB_NOLOCK.
bool check_readable(const std::string& path, const std::string& data, const std::string& lock) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    if (errno == EACCES)
      throw store_error("permission denied: cannot look into the store directory '" + path
                        + "' (" + errno_text(errno) + "); reading a store needs read and "
                          "search (x) permission on its directory");
    throw store_error("no store at '" + path + "': "
                      + (errno == ENOENT ? std::string{"there is no such directory"}
                                         : errno_text(errno))
                      + "; give the directory a recorder wrote to (--store DIR or $SOMA_STORE)",
                      store_trouble::missing);
  }
  if (::access(path.c_str(), R_OK | X_OK) != 0)
    throw store_error("permission denied: cannot look into the store directory '" + path
                      + "'; reading a store needs read and search (x) permission on its "
                        "directory");
  if (::stat(data.c_str(), &st) != 0)
    throw store_error("no store at '" + path
                      + "': there is no data.mdb in it; give the directory a recorder wrote "
                        "to (--store DIR or $SOMA_STORE)", store_trouble::missing);
  if (::access(data.c_str(), R_OK) != 0)
    throw store_error("permission denied: cannot read '" + data
                      + "'; reading a store needs read permission on its data.mdb");
  bool lock_exists = ::access(lock.c_str(), F_OK) == 0;
  return lock_exists ? ::access(lock.c_str(), R_OK | W_OK) != 0
                     : ::access(path.c_str(), W_OK) != 0;
}

// Throws store_error unless the data.mdb `data` of the store at `path`, if
// there is one, is sound. LMDB maps the file as its meta page says: checked
// first, a damaged or cut-off file is an error here and not a SIGBUS later.
// (This also keeps a reader from making lock.mdb in a directory that is no
// store.)
void check_sound(const std::string& path, const std::string& data, bool read_only) {
  if (::access(data.c_str(), F_OK) != 0)
    return;
  auto sound = check_data_file(data);
  if (!sound && sound.error().code() == static_cast<std::uint8_t>(error_code::invalid))
    throw store_error("'" + path + "' holds a data.mdb that is not a soma store; point "
                      "--store at a directory a recorder wrote to"
                      + (read_only ? std::string{} : ", or at an empty directory to make one"),
                      store_trouble::invalid);
  if (!sound)
    throw store_error("the store '" + path + "' is damaged: " + soma::describe(sound.error())
                      + "; nothing in it can be trusted as it is: restore it from a copy",
                      store_trouble::damaged);
}

// Throws the store_error that says why mdb_env_open failed with `rc` on
// the store at `path`.
[[noreturn]] void open_failed(int rc, const std::string& path, bool read_only) {
  if (rc == MDB_INVALID || rc == MDB_VERSION_MISMATCH)
    throw store_error("'" + path + "' holds files that are not a soma store (" + describe(rc)
                      + "); point --store at a store"
                      + (read_only ? std::string{} : ", or at an empty directory to make one"),
                      store_trouble::invalid);
  if (rc == EACCES || rc == EPERM || rc == EROFS)
    throw store_error("permission denied: cannot open the store '" + path + "'"
                      + (read_only ? std::string{}
                                   : " for writing (writing needs write permission on its "
                                     "directory, data.mdb and lock.mdb; to only read it, "
                                     "open it read-only)")
                      + ": " + describe(rc));
  throw store_error("cannot open the store '" + path + "': " + describe(rc));
}

} // namespace

environment::environment(std::string path, const store_options& options)
  : path_(std::move(path)), read_only_(options.read_only) {
  namespace fs = std::filesystem;
  auto data = path_ + "/data.mdb";
  auto lock = path_ + "/lock.mdb";
  std::error_code ec;
  // A file where the store's directory should be is no store, whatever its
  // permissions: said as such, not as a permission it does not lack.
  if (struct stat st {}; ::stat(path_.c_str(), &st) == 0 && !S_ISDIR(st.st_mode))
    throw store_error("no store at '" + path_ + "': it is a file, not a directory; give the "
                      "directory a recorder wrote to (--store DIR or $SOMA_STORE)",
                      store_trouble::missing);
  if (read_only_) {
    unlocked_ = check_readable(path_, data, lock);
  } else {
    fs::create_directories(path_, ec);
    if (ec)
      throw store_error((ec == std::errc::permission_denied ? "permission denied: " : "")
                        + std::string{"cannot create the store directory '"} + path_ + "': "
                        + ec.message());
  }
  check_sound(path_, data, read_only_);
  if (int rc = mdb_env_create(&env_); rc != 0)
    fail(rc, "creating an LMDB environment");
  mdb_env_set_maxdbs(env_, 8);
  mdb_env_set_mapsize(env_, options.map_size);
  unsigned flags = MDB_NOTLS | (read_only_ ? MDB_RDONLY : 0u)
                   | (options.expendable || options.expendable_readings ? MDB_NOMETASYNC : 0u)
                   | (unlocked_ ? MDB_NOLOCK : 0u);
  sync_after_commit_ = options.expendable_readings && !options.expendable && !read_only_;
  if (int rc = mdb_env_open(env_, path_.c_str(), flags, 0664); rc != 0) {
    mdb_env_close(env_);
    env_ = nullptr;
    open_failed(rc, path_, read_only_);
  }
  // Reader slots left by processes that were killed while reading.
  if (!unlocked_) {
    int dead = 0;
    mdb_reader_check(env_, &dead);
  }
  open_databases();
}

void environment::open_databases() {
  MDB_txn* txn = nullptr;
  if (int rc = mdb_txn_begin(env_, nullptr, read_only_ ? MDB_RDONLY : 0u, &txn); rc != 0) {
    mdb_env_close(env_);
    env_ = nullptr;
    throw store_error("cannot open the store '" + path_ + "': " + describe(rc));
  }
  MDB_dbi opened[db_count] = {};
  bool all = true;
  for (size_t i = 0; i < db_count; ++i) {
    // LMDB's main database names the others: in a damaged file its page can
    // send mdb_dbi_open out of the map. Only the lookup is guarded: creating
    // one tracks a cursor on mdb_dbi_open's own stack in the transaction,
    // which the abort after a fault there would free(), so a fault while
    // creating one ends the process as an unguarded fault does. (A guarded
    // put or del in a write transaction has the same hazard: a writer that
    // faults in a damaged store may abort rather than say so.)
    int rc = 0;
    auto step = [&] { rc = mdb_dbi_open(txn, db_names[i], 0u, &opened[i]); };
    if (!guarded(step)) {
      mdb_txn_abort(txn);
      mdb_env_close(env_);
      env_ = nullptr;
      damaged(std::string{"opening database '"} + db_names[i]
              + "' faulted: LMDB followed a page number or offset out of the file");
    }
    if (rc == MDB_NOTFOUND && !read_only_)
      rc = mdb_dbi_open(txn, db_names[i], MDB_CREATE, &opened[i]);
    if (rc == MDB_NOTFOUND) {
      opened[i] = 0;
      all = false;
      if (i >= first_dbs)
        continue; // added since: a store written before it has none
    } else if (rc != 0) {
      mdb_txn_abort(txn);
      mdb_env_close(env_);
      env_ = nullptr;
      // Pages that are not there, or a database whose flags are not the
      // ones soma made it with (MDB_INCOMPATIBLE): its node was damaged.
      if (rc == MDB_CORRUPTED || rc == MDB_PAGE_NOTFOUND || rc == MDB_INCOMPATIBLE)
        damaged("opening database '" + std::string{db_names[i]} + "' failed: " + describe(rc));
      throw store_error("cannot open database '" + std::string{db_names[i]} + "' of the store '"
                        + path_ + "': " + describe(rc));
    }
  }
  if (int rc = mdb_txn_commit(txn); rc != 0) {
    mdb_env_close(env_);
    env_ = nullptr;
    throw store_error("cannot open the store '" + path_ + "': " + describe(rc));
  }
  if (!all && read_only_) {
    // A writer makes every database at once, so a store with some and not
    // others has lost them to damage (LMDB's main database names them).
    std::size_t found = 0;
    std::string missing;
    for (size_t i = 0; i < first_dbs; ++i) {
      if (opened[i] != 0)
        ++found;
      else
        missing += std::string{missing.empty() ? "" : ", "} + db_names[i];
    }
    MDB_stat main{};
    MDB_txn* look = nullptr;
    bool listed = false;
    if (found == 0 && mdb_txn_begin(env_, nullptr, MDB_RDONLY, &look) == 0) {
      listed = mdb_stat(look, 1 /* MAIN_DBI */, &main) == 0 && main.ms_entries > 0;
      mdb_txn_abort(look);
    }
    if (!missing.empty() && (found > 0 || listed)) {
      mdb_env_close(env_);
      env_ = nullptr;
      damaged("its database" + std::string{found + 1 < first_dbs ? "s " : " "} + missing
              + " cannot be found, though a writer makes them all at once");
    }
  }
  publish(opened);
  all_open_ = all;
}

environment::~environment() {
  if (env_)
    mdb_env_close(env_);
}

void environment::fail(int rc, std::string_view what) const {
  if (rc == MDB_CORRUPTED || rc == MDB_PAGE_NOTFOUND || rc == MDB_BAD_TXN || rc == MDB_CURSOR_FULL
      || rc == MDB_INCOMPATIBLE) // a page's or a database's flags not the ones soma wrote
    damaged(std::string{what} + " failed: " + describe(rc));
  throw store_error("store '" + path_ + "': " + std::string{what} + " failed: " + describe(rc));
}

void environment::damaged(std::string_view what) const {
  throw store_error("the store '" + path_ + "' is damaged: " + std::string{what}
                    + (unlocked_ ? "; it was read without its lock (lock.mdb is not writable "
                                   "here), so a writer may have changed it meanwhile: read "
                                   "again, and if it persists"
                                 : ";")
                    + " `soma check --store " + path_
                    + "` lists every damaged entry; what is not damaged still reads",
                    store_trouble::damaged);
}

bool environment::readable(std::string_view bytes) const noexcept {
  if (bytes.empty())
    return true;
  auto touch = [&] {
    const volatile char* p = bytes.data();
    char sink = 0;
    for (std::size_t i = 0; i < bytes.size(); i += 4096)
      sink ^= p[i];
    sink ^= p[bytes.size() - 1];
    (void) sink;
  };
  return guarded(touch);
}

MDB_txn* environment::begin(std::shared_lock<std::shared_mutex>& guard, unsigned flags) const {
  for (int attempt = 0;; ++attempt) {
    MDB_txn* txn = nullptr;
    int rc = mdb_txn_begin(env_, nullptr, flags, &txn);
    if (rc == 0)
      return txn;
    if (rc == MDB_MAP_RESIZED && attempt < 3) {
      // Another process grew the map. Adopting it remaps the file, so no
      // transaction of this process may be open meanwhile.
      guard.unlock();
      {
        std::unique_lock<std::shared_mutex> alone{resize_};
        if (int grow = mdb_env_set_mapsize(env_, 0); grow != 0)
          fail(grow, "adopting the map size another process set");
      }
      guard.lock();
      continue;
    }
    fail(rc, flags & MDB_RDONLY ? "beginning a read" : "beginning a write");
  }
}

bool environment::put(MDB_txn* txn, MDB_dbi dbi, std::string_view key, std::string_view value,
                      unsigned flags) const {
  auto k = val(key);
  auto v = val(value);
  int rc = 0;
  auto step = [&] { rc = mdb_put(txn, dbi, &k, &v, flags); };
  if (!guarded(step))
    damaged("writing faulted: LMDB followed a page number or offset out of the file");
  if (rc == MDB_KEYEXIST && (flags & (MDB_APPEND | MDB_NOOVERWRITE)))
    return false;
  if (rc == MDB_MAP_FULL)
    throw map_full{};
  if (rc != 0)
    fail(rc, "writing '" + printable_key(key) + "'");
  return true;
}

bool environment::get(MDB_txn* txn, MDB_dbi dbi, std::string_view key,
                      std::string_view& value) const {
  if (dbi == 0)
    return false;
  auto k = val(key);
  MDB_val v{};
  int rc = 0;
  auto step = [&] { rc = mdb_get(txn, dbi, &k, &v); };
  if (!guarded(step))
    damaged("reading a key faulted: LMDB followed a page number or offset out of the file");
  if (rc == MDB_NOTFOUND)
    return false;
  if (rc != 0)
    fail(rc, "reading a key");
  value = view(v);
  if (!readable(value))
    damaged("an entry points past the end of the file");
  return true;
}

void environment::del(MDB_txn* txn, MDB_dbi dbi, std::string_view key) const {
  auto k = val(key);
  int rc = 0;
  auto step = [&] { rc = mdb_del(txn, dbi, &k, nullptr); };
  if (!guarded(step))
    damaged("deleting faulted: LMDB followed a page number or offset out of the file");
  if (rc == MDB_MAP_FULL)
    throw map_full{}; // deleting can need pages too: write() grows and replays
  if (rc != 0 && rc != MDB_NOTFOUND)
    fail(rc, "deleting a key");
}

MDB_dbi environment::handle(MDB_txn* txn, db which, bool create, MDB_dbi* local) const {
  auto i = static_cast<size_t>(which);
  if (local[i] != 0)
    return local[i];
  MDB_dbi dbi = 0;
  {
    std::lock_guard<std::mutex> guard{dbis_mtx_};
    dbi = dbis_[i];
  }
  if (dbi != 0) {
    // Shared, but maybe opened after this transaction's snapshot was taken.
    unsigned flags = 0;
    if (mdb_dbi_flags(txn, dbi, &flags) == 0)
      return dbi;
    if (!create)
      return 0;
  }
  // The lookup guarded, the making not (open_databases says why).
  int rc = 0;
  auto step = [&] { rc = mdb_dbi_open(txn, db_names[i], 0u, &dbi); };
  if (!guarded(step))
    damaged(std::string{"opening database '"} + db_names[i]
            + "' faulted: LMDB followed a page number or offset out of the file");
  if (rc == MDB_NOTFOUND && create)
    rc = mdb_dbi_open(txn, db_names[i], MDB_CREATE, &dbi);
  if (rc == MDB_NOTFOUND)
    return 0;
  if (rc != 0)
    fail(rc, std::string{"opening database '"} + db_names[i] + "'");
  local[i] = dbi;
  return dbi;
}

void environment::publish(const MDB_dbi* local) const {
  std::lock_guard<std::mutex> guard{dbis_mtx_};
  for (size_t i = 0; i < db_count; ++i)
    if (local[i] != 0)
      dbis_[i] = local[i];
}

void environment::read(
  const std::function<void(MDB_txn*, const std::function<MDB_dbi(db)>&)>& f) const {
  std::shared_lock<std::shared_mutex> guard{resize_};
  std::unique_lock<std::mutex> opening{opening_, std::defer_lock};
  if (!all_open_)
    opening.lock();
  MDB_txn* txn = begin(guard, MDB_RDONLY);
  MDB_dbi local[db_count] = {};
  auto dbi = [&](db which) { return handle(txn, which, false, local); };
  try {
    f(txn, dbi);
  } catch (...) {
    mdb_txn_abort(txn);
    throw;
  }
  // A handle this transaction opened becomes shared only if it commits.
  if (std::any_of(local, local + db_count, [](MDB_dbi d) { return d != 0; })) {
    if (mdb_txn_commit(txn) == 0) {
      publish(local);
      std::lock_guard<std::mutex> g{dbis_mtx_};
      all_open_ = std::all_of(dbis_, dbis_ + db_count, [](MDB_dbi d) { return d != 0; });
    }
  } else {
    mdb_txn_abort(txn);
  }
}

void environment::write(
  const std::function<void(MDB_txn*, const std::function<MDB_dbi(db)>&)>& f, commit how) {
  if (read_only_)
    throw store_error("store '" + path_ + "' was opened read-only; it cannot be written",
                      store_trouble::read_only);
  for (int attempt = 0;; ++attempt) {
    int rc = 0;
    {
      std::shared_lock<std::shared_mutex> guard{resize_};
      MDB_txn* txn = begin(guard, 0);
      MDB_dbi local[db_count] = {};
      auto dbi = [&](db which) { return handle(txn, which, true, local); };
      try {
        f(txn, dbi);
        rc = mdb_txn_commit(txn); // frees txn, even when it fails
      } catch (const map_full&) {
        mdb_txn_abort(txn);
        rc = MDB_MAP_FULL;
      } catch (...) {
        mdb_txn_abort(txn);
        throw;
      }
      if (rc == 0)
        publish(local);
    }
    if (rc == 0) {
      // The commit synced the data, not its meta page (MDB_NOMETASYNC): a
      // durable write flushes it before it returns, as LMDB's own durable
      // commit would have, so it is the second of two syncs.
      if (sync_after_commit_ && how == commit::durable)
        sync();
      return;
    }
    if (rc != MDB_MAP_FULL || attempt >= 20)
      fail(rc, "committing a write");
    // Full: double the map while no transaction of ours is open, then replay.
    std::unique_lock<std::shared_mutex> guard{resize_};
    MDB_envinfo info;
    mdb_env_info(env_, &info);
    if (int grow = mdb_env_set_mapsize(env_, info.me_mapsize * 2); grow != 0)
      fail(grow, "growing the map");
  }
}

void environment::copy_to(const std::string& dir) const {
  if (int rc = mdb_env_copy2(env_, dir.c_str(), MDB_CP_COMPACT); rc != 0)
    fail(rc, "copying the store into '" + dir + "'");
}

std::uint64_t environment::last_txn() const {
  // What a read transaction begun now sees, not mdb_env_info's meta page: a
  // writer in another process writes its meta page before it tells the lock
  // file, so for a moment the meta page is newer than any reader can get.
  // A waiter comparing against it could then wait for a commit it never sees
  // (measured: a waiting claim missing a trial for its whole wait).
  std::uint64_t id = 0;
  read([&](MDB_txn* txn, const std::function<MDB_dbi(db)>&) { id = mdb_txn_id(txn); });
  return id;
}

void environment::sync() const {
  if (read_only_)
    return;
  if (int rc = mdb_env_sync(env_, 1); rc != 0)
    fail(rc, "syncing the store to disk");
}

} // namespace soma::detail
