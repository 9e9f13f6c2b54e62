#include "soma/store/standing.hpp"

#include <algorithm>

#include "soma/store/answers.hpp"
#include "soma/store/backend.hpp"

namespace soma {

quietness::quietness(const std::map<std::string, reading>& standing) {
  for (auto& [id, r] : standing)
    newest_ = std::max(newest_, r.when_us);
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
