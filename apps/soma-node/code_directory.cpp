#include "code_directory.hpp"

#include <stdlib.h>

#include <cstdio>
#include <filesystem>
#include <system_error>
#include <vector>

namespace soma::node_cli {

std::optional<std::string> make_code_directory() {
  auto code_template = std::filesystem::temp_directory_path().string() + "/soma-node-XXXXXX";
  std::vector<char> code_path(code_template.begin(), code_template.end());
  code_path.push_back('\0');
  if (!::mkdtemp(code_path.data())) {
    std::fprintf(stderr, "soma-node: cannot make a private directory in %s\n",
                 std::filesystem::temp_directory_path().c_str());
    return std::nullopt;
  }
  return std::string{code_path.data()};
}

void remove_code_directory(const std::string& dir) {
  std::error_code ignored;
  std::filesystem::remove_all(dir, ignored);
}

} // namespace soma::node_cli
