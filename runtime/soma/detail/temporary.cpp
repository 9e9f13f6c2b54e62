#include "soma/detail/temporary.hpp"

#include <stdlib.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <system_error>

namespace soma::detail {

std::string make_temporary_directory(std::string_view name) {
  std::error_code ec;
  auto where = std::filesystem::temp_directory_path(ec);
  if (ec) {
    auto* said = std::getenv("TMPDIR");
    throw std::runtime_error("there is no directory for temporary files: $TMPDIR is '"
                             + std::string{said ? said : ""} + "' (" + ec.message()
                             + "); set TMPDIR to a directory this user may write, or unset it "
                               "for /tmp");
  }
  auto path = (where / (std::string{name} + "-XXXXXX")).string();
  if (!::mkdtemp(path.data()))
    throw std::runtime_error("cannot make a directory in " + where.string()
                             + " for temporary files ($TMPDIR, else /tmp): "
                             + std::strerror(errno));
  return path;
}

} // namespace soma::detail
