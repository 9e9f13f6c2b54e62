#include "soma/store/store.hpp"

#include "soma/store/readers.hpp"

#include <cstdlib>
#include <filesystem>

#include <caf/sec.hpp>

#include "soma/error.hpp"
#include "soma/store/backend.hpp"
#include "soma/store/detail/cursor.hpp"
#include "soma/store/detail/environment.hpp"
#include "soma/store/keys.hpp"
#include "soma/store/local.hpp"

namespace soma {

namespace {

constexpr std::string_view trouble_names[] = {"failed",    "invalid", "missing",
                                              "damaged",   "unreachable", "timed_out",
                                              "busy",      "read_only", "refused"};
static_assert(std::size(trouble_names) == static_cast<std::size_t>(store_trouble::refused) + 1);

// Each store_trouble's error_code, in store_trouble's order.
constexpr error_code trouble_codes[] = {
  error_code::store_failed, error_code::invalid,   error_code::missing,
  error_code::damaged,      error_code::unreachable, error_code::timed_out,
  error_code::busy,         error_code::read_only,   error_code::refused};
static_assert(std::size(trouble_codes) == std::size(trouble_names));

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

error_code code_of(store_trouble t) noexcept { return trouble_codes[static_cast<std::size_t>(t)]; }

store_trouble trouble_of(const caf::error& e) noexcept {
  if (!e)
    return store_trouble::failed;
  if (e.category() == error_category) {
    for (std::size_t i = 0; i < std::size(trouble_codes); ++i)
      if (static_cast<std::uint8_t>(trouble_codes[i]) == e.code())
        return static_cast<store_trouble>(i);
    return store_trouble::failed;
  }
  if (e.category() != caf::atom("system"))
    return store_trouble::failed;
  switch (static_cast<caf::sec>(e.code())) {
    case caf::sec::request_timeout:
    case caf::sec::connection_timeout: return store_trouble::timed_out;
    case caf::sec::request_receiver_down:
    case caf::sec::disconnect_during_handshake:
    case caf::sec::cannot_forward_to_invalid_actor:
    case caf::sec::no_route_to_receiving_node:
    case caf::sec::cannot_connect_to_node:
    case caf::sec::network_syscall_failed:
    case caf::sec::remote_linking_failed:
    case caf::sec::socket_disconnected:
    case caf::sec::socket_operation_failed:
    case caf::sec::remote_lookup_failed: return store_trouble::unreachable;
    default: return store_trouble::failed;
  }
}

caf::error as_error(const store_error& e) { return make_error(code_of(e.trouble()), e.what()); }

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
