#include "soma/store/detail/environment.hpp"

#include <cerrno>
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <sys/stat.h>

namespace soma::detail {

namespace {

constexpr const char* db_names[db_count] = {"records", "facts", "meta", "cache", "cache_age", "readings"};

std::string describe(int rc) {
  return mdb_strerror(rc);
}

// A key as text: bytes that are not printable as \xNN (keys end in a
// big-endian number whose first byte is often NUL, which would end a message).
std::string printable(std::string_view key) {
  static constexpr char hex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : key) {
    if (c >= 0x20 && c < 0x7f) {
      out.push_back(static_cast<char>(c));
    } else {
      out += "\\x";
      out.push_back(hex[c >> 4]);
      out.push_back(hex[c & 0xf]);
    }
  }
  return out;
}

// Whether `file` starts like an LMDB data file: a page header, then the meta
// page's magic number.
bool looks_like_lmdb(const std::string& file) {
  constexpr std::uint32_t magic = 0xBEEFC0DE;
  std::FILE* f = std::fopen(file.c_str(), "rb");
  if (!f)
    return true; // let LMDB say why it cannot open it
  unsigned char head[20];
  auto n = std::fread(head, 1, sizeof head, f);
  std::fclose(f);
  if (n < sizeof head)
    return false;
  std::uint32_t found = 0;
  std::memcpy(&found, head + 16, sizeof found);
  return found == magic;
}

} // namespace

environment::environment(std::string path, const store_options& options)
  : path_(std::move(path)), read_only_(options.read_only) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (read_only_) {
    if (!fs::exists(fs::path{path_} / "data.mdb", ec))
      throw store_error("no store at '" + path_
                        + "': there is no data.mdb in it; give the directory a recorder wrote "
                          "to (--store DIR or $SOMA_STORE)");
    // LMDB makes lock.mdb before it looks at data.mdb: look first, so that a
    // reader never writes a file into a directory that is not a store.
    if (!looks_like_lmdb(path_ + "/data.mdb"))
      throw store_error("'" + path_ + "' holds a data.mdb that is not a soma store; point "
                        "--store at a directory a recorder wrote to");
  } else {
    fs::create_directories(path_, ec);
    if (ec)
      throw store_error("cannot create the store directory '" + path_ + "': " + ec.message());
  }
  if (int rc = mdb_env_create(&env_); rc != 0)
    fail(rc, "creating an LMDB environment");
  mdb_env_set_maxdbs(env_, 8);
  mdb_env_set_mapsize(env_, options.map_size);
  unsigned flags = MDB_NOTLS | (read_only_ ? MDB_RDONLY : 0u)
                   | (options.expendable ? MDB_NOMETASYNC : 0u);
  if (int rc = mdb_env_open(env_, path_.c_str(), flags, 0664); rc != 0) {
    mdb_env_close(env_);
    env_ = nullptr;
    if (rc == MDB_INVALID || rc == MDB_VERSION_MISMATCH)
      throw store_error("'" + path_ + "' holds files that are not a soma store (" + describe(rc)
                        + "); point --store at a store"
                        + (read_only_ ? std::string{} : ", or at an empty directory to make one"));
    if (rc == EACCES)
      throw store_error("no permission to open the store '" + path_ + "'"
                        + (read_only_ ? "" : " for writing") + ": " + describe(rc));
    throw store_error("cannot open the store '" + path_ + "': " + describe(rc));
  }
  // Reader slots left by processes that were killed while reading.
  int dead = 0;
  mdb_reader_check(env_, &dead);
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
    int rc = mdb_dbi_open(txn, db_names[i], read_only_ ? 0u : MDB_CREATE, &opened[i]);
    if (rc == MDB_NOTFOUND) {
      opened[i] = 0;
      all = false;
    } else if (rc != 0) {
      mdb_txn_abort(txn);
      mdb_env_close(env_);
      env_ = nullptr;
      throw store_error("cannot open database '" + std::string{db_names[i]} + "' of the store '"
                        + path_ + "': " + describe(rc));
    }
  }
  if (int rc = mdb_txn_commit(txn); rc != 0) {
    mdb_env_close(env_);
    env_ = nullptr;
    throw store_error("cannot open the store '" + path_ + "': " + describe(rc));
  }
  publish(opened);
  all_open_ = all;
}

environment::~environment() {
  if (env_)
    mdb_env_close(env_);
}

void environment::fail(int rc, std::string_view what) const {
  std::string msg = "store '" + path_ + "': " + std::string{what} + " failed: " + describe(rc);
  if (rc == MDB_CORRUPTED || rc == MDB_PAGE_NOTFOUND)
    msg += "; the store's file is damaged: copy out what still reads with the soma command";
  throw store_error(msg);
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

void environment::put(MDB_txn* txn, MDB_dbi dbi, std::string_view key, std::string_view value,
                      unsigned flags) const {
  auto k = val(key);
  auto v = val(value);
  int rc = mdb_put(txn, dbi, &k, &v, flags);
  if (rc == MDB_MAP_FULL)
    throw map_full{};
  if (rc != 0)
    fail(rc, "writing '" + printable(key.substr(0, 64)) + "'");
}

bool environment::get(MDB_txn* txn, MDB_dbi dbi, std::string_view key,
                      std::string_view& value) const {
  if (dbi == 0)
    return false;
  auto k = val(key);
  MDB_val v;
  int rc = mdb_get(txn, dbi, &k, &v);
  if (rc == MDB_NOTFOUND)
    return false;
  if (rc != 0)
    fail(rc, "reading a key");
  value = view(v);
  return true;
}

void environment::del(MDB_txn* txn, MDB_dbi dbi, std::string_view key) const {
  auto k = val(key);
  int rc = mdb_del(txn, dbi, &k, nullptr);
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
  int rc = mdb_dbi_open(txn, db_names[i], create ? MDB_CREATE : 0u, &dbi);
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
  const std::function<void(MDB_txn*, const std::function<MDB_dbi(db)>&)>& f) {
  if (read_only_)
    throw store_error("store '" + path_ + "' was opened read-only; it cannot be written");
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
    if (rc == 0)
      return;
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

void environment::sync() const {
  if (read_only_)
    return;
  if (int rc = mdb_env_sync(env_, 1); rc != 0)
    fail(rc, "syncing the store to disk");
}

} // namespace soma::detail
