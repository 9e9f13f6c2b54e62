#include "soma/detail/libraries.hpp"

#include <dlfcn.h>
#include <link.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <stdexcept>

#include <openssl/evp.h>

namespace soma::detail {

const library_entry* node_library::find(std::string_view type) const {
  for (auto& e : *entries)
    if (e.type == type)
      return &e;
  return nullptr;
}

std::string sha256_hex(std::string_view bytes) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned len = 0;
  EVP_Digest(bytes.data(), bytes.size(), digest, &len, EVP_sha256(), nullptr);
  static constexpr char hex[] = "0123456789abcdef";
  std::string out;
  out.reserve(len * 2);
  for (unsigned i = 0; i < len; ++i) {
    out.push_back(hex[digest[i] >> 4]);
    out.push_back(hex[digest[i] & 15]);
  }
  return out;
}

std::string read_file(const std::string& path) {
  std::ifstream in{path, std::ios::binary};
  if (!in)
    throw std::runtime_error("cannot read '" + path + "'");
  std::ostringstream bytes;
  bytes << in.rdbuf();
  if (in.bad())
    throw std::runtime_error("cannot read '" + path + "'");
  return std::move(bytes).str();
}

namespace {

std::mutex lock;
// Libraries found in this process, by path; they stay loaded for good.
std::map<std::string, std::shared_ptr<node_library>> found;

int each_object(struct dl_phdr_info* info, size_t, void* out) {
  if (info->dlpi_name && *info->dlpi_name)
    static_cast<std::vector<std::string>*>(out)->emplace_back(info->dlpi_name);
  return 0;
}

// The node library at `path` if it is one and already loaded, else nullptr.
std::shared_ptr<node_library> inspect(const std::string& path) {
  void* handle = dlopen(path.c_str(), RTLD_LAZY | RTLD_NOLOAD);
  if (!handle)
    return nullptr;
  auto fn = reinterpret_cast<library_catalog_fn>(dlsym(handle, library_symbol));
  Dl_info where{};
  // dlsym also searches the object's dependencies: only its own symbol counts.
  if (!fn || !dladdr(reinterpret_cast<void*>(fn), &where) || !where.dli_fname
      || path != where.dli_fname) {
    dlclose(handle);
    return nullptr;
  }
  auto lib = std::make_shared<node_library>();
  lib->path = path;
  lib->definition = sha256_hex(read_file(path));
  lib->entries = &fn();
  lib->handle = handle;
  return lib;
}

} // namespace

const node_library& library_defining(const std::string& type) {
  std::lock_guard guard{lock};
  for (auto& [path, lib] : found)
    if (lib->find(type))
      return *lib;
  std::vector<std::string> objects;
  dl_iterate_phdr(each_object, &objects);
  for (auto& path : objects) {
    if (found.count(path))
      continue;
    if (auto lib = inspect(path)) {
      found.emplace(path, lib);
      if (lib->find(type))
        return *lib;
    }
  }
  throw std::invalid_argument(
    "node type " + type
    + " is not served by any node library loaded in this process; a node that runs on a "
      "worker (.at) is defined in a shared library built with soma_add_node_library() and "
      "listed in its SOMA_NODE_LIBRARY(...) (docs/remote.md)");
}

std::shared_ptr<const node_library> load_node_library(const std::string& given) {
  // An absolute path, so dlopen loads the very file hashed here rather than
  // searching its library path for a name.
  std::error_code ec;
  auto path = std::filesystem::canonical(given, ec).string();
  if (ec)
    throw std::runtime_error("cannot load node library '" + given + "': " + ec.message());
  auto bytes = read_file(path);
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* why = dlerror();
    throw std::runtime_error("cannot load node library '" + path + "': " + (why ? why : "dlopen failed"));
  }
  // dlsym also searches the library's dependencies: only its own symbols count.
  auto own = [&](void* symbol) {
    Dl_info where{};
    std::error_code ignored;
    return symbol && dladdr(symbol, &where) && where.dli_fname
           && std::filesystem::canonical(where.dli_fname, ignored).string() == path;
  };
  auto fn = reinterpret_cast<library_catalog_fn>(dlsym(handle, library_symbol));
  auto trials = reinterpret_cast<trial_catalog_fn>(dlsym(handle, trial_symbol));
  bool nodes = own(reinterpret_cast<void*>(fn)), functions = own(reinterpret_cast<void*>(trials));
  if (!nodes && !functions) {
    if (dlsym(handle, old_library_symbol))
      throw std::runtime_error("cannot load node library '" + given + "': it was built by an "
                               "older soma, whose nodes travel without their fields; rebuild it "
                               "against this one");
    throw std::runtime_error("cannot load node library '" + given + "': it is not a soma node "
                             "library, it has no SOMA_NODE_LIBRARY(...) or SOMA_TRIAL_FUNCTIONS(...) "
                             "of its own (docs/remote.md, docs/trials.md)");
  }
  auto lib = std::make_shared<node_library>();
  lib->path = path;
  lib->definition = sha256_hex(bytes);
  static const std::vector<library_entry> no_nodes;
  static const std::vector<trial_function_entry> no_trials;
  lib->entries = nodes ? &fn() : &no_nodes;
  lib->trials = functions ? &trials() : &no_trials;
  lib->handle = handle;
  return lib;
}

} // namespace soma::detail
