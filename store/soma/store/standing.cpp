#include "soma/store/standing.hpp"

#include <algorithm>
#include <chrono>
#include <ostream>

#include "soma/store/answers.hpp"
#include "soma/store/backend.hpp"

namespace soma {

const char* to_string(machine_state s) noexcept {
  return s == machine_state::quiet ? "quiet" : "reporting";
}

std::ostream& operator<<(std::ostream& out, machine_state s) {
  return out << to_string(s);
}

std::int64_t reader_now_us() noexcept {
  return std::chrono::duration_cast<std::chrono::microseconds>(
           std::chrono::system_clock::now().time_since_epoch())
    .count();
}

quietness::quietness(const std::map<std::string, reading>& standing,
                     std::optional<std::int64_t> now_us)
  : now_us_(now_us) {
  for (auto& [id, r] : standing)
    newest_ = std::max(newest_, r.when_us);
}

std::int64_t judged_interval_us(const reading& r) noexcept {
  constexpr std::int64_t day_us = 86'400'000'000;
  return r.every_us > 0 ? std::min(r.every_us, day_us) : unsaid_interval_us;
}

machine_state quietness::state_of(const reading& r) const noexcept {
  auto allowed = quiet_after_intervals * judged_interval_us(r);
  // Behind the others, who still write (clocks a day apart say nothing).
  if (newest_ > r.when_us && newest_ - r.when_us > allowed)
    return machine_state::quiet;
  // Every machine silent that long: the reader's clock says so, past what
  // it may run ahead of the writers'. A reader whose clock is behind the
  // writers' sees nothing silent.
  if (now_us_ && *now_us_ > newest_ && *now_us_ - newest_ > allowed + reader_clock_drift_us)
    return machine_state::quiet;
  return machine_state::reporting;
}

std::map<std::string, reading> standing(const store& s) {
  std::map<std::string, reading> out;
  std::optional<std::string> after;
  for (;;) {
    auto part = s.backend().ask().standing(after, detail::rows_per_part);
    auto full = part.size() >= detail::rows_per_part;
    for (auto& [id, r] : part)
      out.insert_or_assign(id, std::move(r));
    if (!full || part.empty())
      return out;
    after = part.back().first;
  }
}

std::map<std::string, reading> standing(const std::vector<store>& stores) {
  std::map<std::string, reading> out;
  for (auto& s : stores)
    for (auto& [id, r] : standing(s))
      if (auto [at, fresh] = out.try_emplace(id, r); !fresh && at->second.when_us < r.when_us)
        at->second = r;
  return out;
}

} // namespace soma
