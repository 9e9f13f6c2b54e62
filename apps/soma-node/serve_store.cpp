#include "serve_store.hpp"

#include <cstdio>
#include <filesystem>
#include <system_error>

#include "log.hpp"

namespace soma::node_cli {

bool open_served_store(const options& opt, std::optional<soma::store>& served) {
  if (opt.serve_store.empty())
    return true;
  std::error_code ec;
  if (!std::filesystem::exists(opt.serve_store, ec))
    say("--serve-store: there is no store in '" + opt.serve_store
        + "' yet: serving a new, empty one there");
  try {
    served.emplace(opt.serve_store);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "soma-node: --serve-store: %s\n", e.what());
    return false;
  }
  return true;
}

} // namespace soma::node_cli
