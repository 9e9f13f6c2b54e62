#pragma once

// Where an example keeps its store: the directory its first argument names,
// else a fresh one under /tmp, left behind so that `soma` can read it after.

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>

/// argv[1] when given, else a new directory /tmp/soma-<name>-XXXXXX. Throws
/// std::runtime_error saying why when none can be made.
inline std::string store_dir(int argc, char** argv, const std::string& name) {
  if (argc > 1)
    return argv[1];
  std::string fresh = "/tmp/soma-" + name + "-XXXXXX";
  if (!::mkdtemp(fresh.data()))
    throw std::runtime_error("cannot make a directory under /tmp for the store: "
                             + std::string{std::strerror(errno)});
  return fresh;
}
