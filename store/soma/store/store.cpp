#include "soma/store/store.hpp"

#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>

#include "soma/error.hpp"
#include "soma/store/detail/environment.hpp"
#include "soma/store/keys.hpp"

namespace soma {

namespace {

// LMDB forbids opening one environment twice in a process (closing either
// would drop the other's locks), so handles to one directory share one. This
// map only remembers what is open; it owns nothing.
struct open_environments {
  std::mutex mtx;
  std::map<std::string, std::weak_ptr<detail::environment>> by_path;
};

open_environments& environments() {
  static open_environments instance;
  return instance;
}

std::string canonical(const std::string& dir) {
  std::error_code ec;
  auto p = std::filesystem::weakly_canonical(std::filesystem::absolute(dir, ec), ec);
  return ec ? dir : p.string();
}

std::shared_ptr<detail::environment> environment_for(const std::string& dir,
                                                     const store_options& options) {
  auto key = canonical(dir);
  auto& envs = environments();
  std::lock_guard<std::mutex> guard{envs.mtx};
  if (auto env = envs.by_path[key].lock()) {
    if (env->read_only() && !options.read_only)
      throw store_error("store '" + dir
                        + "' is already open read-only in this process; open it for writing "
                          "first, or only read it");
    return env;
  }
  auto env = std::make_shared<detail::environment>(dir, options);
  envs.by_path[key] = env;
  return env;
}

} // namespace

store::store(const std::string& dir, store_options options)
  : env_(environment_for(dir, options)), cache_limit_(options.cache_limit) {
}

caf::expected<store> store::open(const std::string& dir, store_options options) {
  try {
    return store{dir, options};
  } catch (const store_error& e) {
    return make_error(error_code::store_failed, "", e.what());
  }
}

std::string store::default_path() {
  if (auto* env = std::getenv("SOMA_STORE"); env && *env)
    return env;
  return "soma-store";
}

const std::string& store::path() const noexcept {
  return env_->path();
}

bool store::read_only() const noexcept {
  return env_->read_only();
}

std::vector<std::string> store::bound() const {
  std::vector<std::string> out;
  env_->read([&](MDB_txn* txn, auto& dbi) {
    auto records = dbi(detail::db::records);
    if (records == 0)
      return;
    MDB_cursor* cur = nullptr;
    if (int rc = mdb_cursor_open(txn, records, &cur); rc != 0)
      env_->fail(rc, "opening a cursor");
    MDB_val k, v;
    for (int rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST); rc == 0;
         rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
      std::string_view run;
      std::uint64_t n = 0;
      if (detail::parse_record_key(detail::view(k), run, n))
        out.push_back("run/" + std::string{run} + "/" + std::to_string(n));
    }
    mdb_cursor_close(cur);
  });
  return out;
}

} // namespace soma
