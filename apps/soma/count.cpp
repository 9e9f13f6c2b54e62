#include "count.hpp"

#include <charconv>
#include <string>

#include "usage_error.hpp"

namespace soma::cli {

std::uint64_t parse_count(std::string_view text, std::string_view what) {
  std::uint64_t n = 0;
  auto* first = text.data();
  auto* end = text.data() + text.size();
  auto [stop, ec] = std::from_chars(first, end, n);
  if (text.empty() || ec != std::errc{} || stop != end) {
    std::string why = ec == std::errc::result_out_of_range ? "too large" : "not a whole number";
    if (!text.empty() && text.front() == '-')
      why = "negative";
    throw usage_error(std::string{what} + " must be a whole number, 0 or more; '"
                      + std::string{text} + "' is " + why);
  }
  return n;
}

} // namespace soma::cli
