#pragma once

// Where an example keeps its store: the directory its first argument names,
// else a fresh one in the directory for temporary files ($TMPDIR, else
// /tmp), left behind so that `soma` can read it after.

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string>

/// argv[1] when given, else a new directory $TMPDIR/soma-<name>-XXXXXX.
/// Throws std::runtime_error saying why when none can be made.
inline std::string store_dir(int argc, char** argv, const std::string& name) {
  if (argc > 1)
    return argv[1];
  auto where = std::filesystem::temp_directory_path(); // throws, naming $TMPDIR's path
  std::string fresh = (where / ("soma-" + name + "-XXXXXX")).string();
  if (!::mkdtemp(fresh.data()))
    throw std::runtime_error("cannot make a directory in " + where.string() + " for the store: "
                             + std::string{std::strerror(errno)});
  return fresh;
}
