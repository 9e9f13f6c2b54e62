#include "soma/store/detail/utc.hpp"

#include <ctime>

namespace soma::detail {

std::string utc(std::int64_t us) {
  std::time_t t = static_cast<std::time_t>(us / 1000000);
  std::tm parts{};
  char out[32] = "?";
  if (gmtime_r(&t, &parts))
    std::strftime(out, sizeof out, "%Y-%m-%dT%H:%M:%SZ", &parts);
  return out;
}

} // namespace soma::detail
