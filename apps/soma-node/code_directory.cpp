#include "code_directory.hpp"

#include <cstdio>
#include <filesystem>
#include <stdexcept>
#include <system_error>

#include "soma/detail/temporary.hpp"

namespace soma::node_cli {

std::optional<std::string> make_code_directory() {
  try {
    return detail::make_temporary_directory("soma-node");
  } catch (const std::runtime_error& e) {
    std::fprintf(stderr, "soma-node: no private directory for code sent to it: %s\n", e.what());
    return std::nullopt;
  }
}

void remove_code_directory(const std::string& dir) {
  std::error_code ignored;
  std::filesystem::remove_all(dir, ignored);
}

} // namespace soma::node_cli
