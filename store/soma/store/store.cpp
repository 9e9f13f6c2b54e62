#include "soma/store/store.hpp"

#include "soma/store/readers.hpp"

#include <cstdlib>
#include <filesystem>

#include "soma/error.hpp"
#include "soma/store/backend.hpp"
#include "soma/store/detail/cursor.hpp"
#include "soma/store/detail/environment.hpp"
#include "soma/store/keys.hpp"
#include "soma/store/local.hpp"

namespace soma {

namespace {

constexpr std::string_view trouble_names[] = {"failed", "invalid", "missing", "damaged",
                                              "unreachable"};

} // namespace

std::string_view to_string(store_trouble t) noexcept {
  return trouble_names[static_cast<std::size_t>(t)];
}

store_trouble store_trouble_named(std::string_view name) noexcept {
  for (std::size_t i = 0; i < std::size(trouble_names); ++i)
    if (trouble_names[i] == name)
      return static_cast<store_trouble>(i);
  return store_trouble::failed;
}

store::store(const std::string& dir, store_options options) : cache_limit_(options.cache_limit) {
  if (dir.starts_with("soma://"))
    throw store_error("'" + dir + "' is a served store, which is reached through an actor system: "
                      "open it with soma::open_store(system, \"" + dir
                      + "\") (soma/remote/served_store.hpp)",
                      store_trouble::invalid);
  backend_ = detail::open_local(dir, options);
}

bool store::on_this_host() const noexcept { return backend_->local() != nullptr; }

store::store(std::shared_ptr<detail::backend> backend, store_options options)
  : backend_(std::move(backend)), cache_limit_(options.cache_limit) {}


detail::environment& store::env() const {
  if (auto* env = backend_->local().get())
    return *env;
  throw store_error("the served store " + backend_->path()
                    + " has no environment on this host: it is read and written through its "
                      "server");
}

void store::sync() const { backend_->sync(); }

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

const std::string& store::path() const noexcept { return backend_->path(); }

bool store::read_only() const noexcept { return backend_->read_only(); }

void store::copy_to(const std::string& dir) const {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec)
    throw store_error("cannot make the directory '" + dir + "' for a copy of the store '" + path()
                      + "': " + ec.message(), store_trouble::failed);
  if (std::filesystem::exists(std::filesystem::path{dir} / "data.mdb", ec))
    throw store_error("'" + dir + "' already holds a store; copy into a new directory",
                      store_trouble::invalid);
  backend_->copy_to(dir);
}

std::vector<std::string> store::bound() const {
  // Forwards are numbered 0 .. n - 1 with none missing (readers check it).
  std::vector<std::string> out;
  for (auto& row : runs(*this))
    for (std::uint64_t n = 0; n < row.forwards; ++n)
      out.push_back("run/" + row.run + "/" + std::to_string(n));
  return out;
}

} // namespace soma
