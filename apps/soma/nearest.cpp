#include "nearest.hpp"

#include <algorithm>
#include <utility>

namespace soma::cli {

std::size_t distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j)
    row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      auto above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::vector<std::string> nearest(std::string_view typed, const std::vector<std::string>& names,
                                 std::size_t most) {
  auto allowed = std::max<std::size_t>(2, typed.size() / 3);
  std::vector<std::pair<std::size_t, std::string>> near;
  for (auto& name : names) {
    if (name == typed)
      continue;
    auto d = distance(typed, name);
    bool prefix = !typed.empty() && (name.starts_with(typed) || typed.starts_with(name));
    if ((d <= allowed && d < typed.size()) || prefix)
      near.emplace_back(d, name);
  }
  std::sort(near.begin(), near.end());
  std::vector<std::string> out;
  for (std::size_t i = 0; i < near.size() && i < most; ++i)
    out.push_back(near[i].second);
  return out;
}

std::string did_you_mean(const std::vector<std::string>& near) {
  if (near.empty())
    return "";
  std::string out = "did you mean ";
  for (std::size_t i = 0; i < near.size(); ++i)
    out += (i == 0 ? "" : i + 1 == near.size() ? " or " : ", ") + ("'" + near[i] + "'");
  return out + "?";
}

} // namespace soma::cli
