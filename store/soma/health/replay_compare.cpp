// compare(): how two replays' episodes differ (soma/health/replay.hpp).

#include <limits>

#include "soma/health/replay.hpp"

namespace soma::health {

std::string_view to_string(difference_is x) noexcept {
  switch (x) {
  case difference_is::only_in_a: return "only in A";
  case difference_is::only_in_b: return "only in B";
  case difference_is::fired_only_in_a: return "fired only in A";
  case difference_is::fired_only_in_b: return "fired only in B";
  case difference_is::firing_moved: return "firing moved";
  }
  return "?";
}

namespace {

// The steps an episode held, [pending_us, end): to its clearing, or past the
// replay's last step.
bool overlap(const episode& a, const episode& b, std::int64_t end_us) {
  auto a_end = a.cleared_us.value_or(end_us);
  auto b_end = b.cleared_us.value_or(end_us);
  return a.pending_us < b_end && b.pending_us < a_end;
}

bool same_subject(const episode& a, const episode& b) {
  return a.rule == b.rule && a.subject == b.subject;
}

} // namespace

std::vector<difference> compare(const replayed& a, const replayed& b) {
  auto end_us = std::max(a.last_us, b.last_us) + 1;
  std::vector<bool> b_taken(b.episodes.size());
  std::vector<difference> out;
  for (auto& x : a.episodes) {
    std::optional<std::size_t> match;
    for (std::size_t k = 0; k < b.episodes.size() && !match; ++k)
      if (!b_taken[k] && same_subject(x, b.episodes[k]) && overlap(x, b.episodes[k], end_us))
        match = k;
    if (!match) {
      out.push_back({difference_is::only_in_a, x, std::nullopt, 0});
      continue;
    }
    b_taken[*match] = true;
    auto& y = b.episodes[*match];
    if (x.firing_us && !y.firing_us)
      out.push_back({difference_is::fired_only_in_a, x, y, 0});
    else if (!x.firing_us && y.firing_us)
      out.push_back({difference_is::fired_only_in_b, x, y, 0});
    else if (x.firing_us && *x.firing_us != *y.firing_us)
      out.push_back({difference_is::firing_moved, x, y, *y.firing_us - *x.firing_us});
  }
  for (std::size_t k = 0; k < b.episodes.size(); ++k)
    if (!b_taken[k])
      out.push_back({difference_is::only_in_b, std::nullopt, b.episodes[k], 0});
  auto when = [](const difference& d) { return (d.a ? d.a : d.b)->pending_us; };
  std::stable_sort(out.begin(), out.end(),
                   [&](const difference& l, const difference& r) { return when(l) < when(r); });
  return out;
}

} // namespace soma::health
