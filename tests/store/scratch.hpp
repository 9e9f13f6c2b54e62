#pragma once

// A fresh directory per test, removed afterwards.

#include <cstdlib>
#include <filesystem>
#include <string>

namespace soma_test {

struct scratch {
  std::string dir;

  scratch() {
    char tmpl[] = "/tmp/soma-test-XXXXXX";
    dir = ::mkdtemp(tmpl);
  }

  ~scratch() {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }

  /// A path inside the scratch directory.
  std::string operator/(const std::string& name) const { return dir + "/" + name; }
};

} // namespace soma_test
