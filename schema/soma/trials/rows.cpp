#include "soma/trials/rows.hpp"

#include <ostream>

namespace soma {

const char* to_string(trial_state s) noexcept {
  switch (s) {
    case trial_state::waiting: return "waiting";
    case trial_state::claimed: return "claimed";
    case trial_state::done: return "done";
    case trial_state::broke: return "broke";
  }
  return "?";
}

std::ostream& operator<<(std::ostream& out, trial_state s) { return out << to_string(s); }

std::string trial_run(std::string_view study, std::uint64_t number, std::uint32_t attempt) {
  auto run = std::string{study} + "." + std::to_string(number);
  if (attempt > 1)
    run += "." + std::to_string(attempt);
  return run;
}

} // namespace soma
