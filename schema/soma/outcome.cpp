#include "soma/outcome.hpp"

#include <ostream>

namespace soma {

std::string_view to_string(outcome x) noexcept {
  switch (x) {
    case outcome::ok: return "ok";
    case outcome::broke: return "broke";
    default: return "open";
  }
}

std::ostream& operator<<(std::ostream& out, outcome x) {
  return out << to_string(x);
}

} // namespace soma
