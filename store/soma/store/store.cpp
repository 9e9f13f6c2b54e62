#include "soma/store/store.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>

#include "soma/error.hpp"
#include "soma/store/detail/cursor.hpp"
#include "soma/store/detail/environment.hpp"
#include "soma/store/keys.hpp"
#include "soma/store/remote.hpp"

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

namespace {

detail::remote_opener& opener() {
  static detail::remote_opener instance;
  return instance;
}

// A snapshot of a served store, in a directory of its own that goes with it.
std::shared_ptr<detail::environment> snapshot_of(detail::remote_link& link,
                                                 const store_options& options) {
  auto bytes = link.call("snapshot", "");
  char tmpl[] = "/tmp/soma-snapshot-XXXXXX";
  if (!::mkdtemp(tmpl))
    throw store_error("cannot make a directory for a snapshot of " + link.address());
  std::string dir = tmpl;
  {
    std::ofstream out{dir + "/data.mdb", std::ios::binary};
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out)
      throw store_error("cannot write a snapshot of " + link.address() + " into " + dir);
  }
  auto read = options;
  read.read_only = true;
  auto* env = new detail::environment(dir, read);
  return std::shared_ptr<detail::environment>(env, [dir](detail::environment* e) {
    delete e;
    std::error_code ignored;
    std::filesystem::remove_all(dir, ignored);
  });
}

} // namespace

namespace detail {

void set_remote_opener(remote_opener o) { opener() = std::move(o); }

bool is_remote_address(std::string_view dir) noexcept { return dir.starts_with("soma://"); }

} // namespace detail

namespace {

std::shared_ptr<detail::remote_link> link_to(const std::string& dir, const store_options& options) {
  if (!opener())
    throw store_error("cannot reach the served store " + dir
                      + ": this program does not link soma_actors, which speaks to servers; "
                        "link soma::soma");
  return opener()(dir, options);
}

} // namespace

store::store(const std::string& dir, store_options options)
  : read_only_(options.read_only), cache_limit_(options.cache_limit) {
  if (detail::is_remote_address(dir)) {
    auto link = link_to(dir, options);
    if (options.read_only)
      env_ = snapshot_of(*link, options);
    else
      remote_ = std::move(link);
    path_ = std::make_shared<const std::string>(dir);
    return;
  }
  env_ = environment_for(dir, options);
  read_only_ = env_->read_only();
}

detail::environment& store::env() const {
  if (!env_)
    throw store_error("the served store " + *path_
                      + " is open for writing through its server, which takes recorders and "
                        "machine readings; to read it, open it read-only "
                        "(store_options{.read_only = true}): that reads a snapshot");
  return *env_;
}

void store::sync() const {
  if (env_)
    env_->sync();
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
  return path_ ? *path_ : env_->path();
}

bool store::read_only() const noexcept {
  return read_only_;
}

std::vector<std::string> store::bound() const {
  std::vector<std::string> out;
  auto& env = this->env();
  env.read([&](MDB_txn* txn, auto& dbi) {
    detail::cursor c{env, txn, dbi(detail::db::records)};
    for (bool ok = c.move(MDB_FIRST); ok; ok = c.move(MDB_NEXT)) {
      std::string_view run;
      std::uint64_t n = 0;
      if (detail::parse_record_key(c.key(), run, n))
        out.push_back("run/" + std::string{run} + "/" + std::to_string(n));
    }
  });
  return out;
}

} // namespace soma
