#include "soma/web/compare.hpp"

#include <algorithm>

namespace soma::web {

runs_compared compare_runs(const store& s, std::string_view a, std::string_view b) {
  runs_compared out{std::string{a}, std::string{b}, {}, run_summary(s, a).params,
                    run_summary(s, b).params};
  auto in_a = nodes(s, a);
  auto in_b = nodes(s, b);
  for (auto& row : in_a)
    out.nodes.push_back({row.node, row, std::nullopt});
  for (auto& row : in_b) {
    auto at = std::find_if(out.nodes.begin(), out.nodes.end(),
                           [&](auto& n) { return n.node == row.node; });
    if (at == out.nodes.end())
      out.nodes.push_back({row.node, std::nullopt, row});
    else
      at->b = row;
  }
  return out;
}

namespace {

json side(const std::optional<node_row>& r) {
  if (!r)
    return nullptr;
  return json{{"ran", r->ran}, {"recalled", r->recalled}, {"failed", r->failed},
              {"took_us", r->took_us}, {"mean_us", r->mean_us}};
}

// B - A, a missing side counting 0.
json difference(const node_compared& x) {
  node_row none;
  auto& a = x.a ? *x.a : none;
  auto& b = x.b ? *x.b : none;
  auto minus = [](std::uint64_t p, std::uint64_t q) {
    return static_cast<std::int64_t>(p) - static_cast<std::int64_t>(q);
  };
  return json{{"ran", minus(b.ran, a.ran)}, {"recalled", minus(b.recalled, a.recalled)},
              {"failed", minus(b.failed, a.failed)}, {"took_us", b.took_us - a.took_us},
              {"mean_us", b.mean_us - a.mean_us}};
}

} // namespace

json json_of(const runs_compared& x) {
  auto rows = json::array();
  for (auto& n : x.nodes)
    rows.push_back(json{{"node", n.node}, {"a", side(n.a)}, {"b", side(n.b)},
                        {"difference", difference(n)}});
  auto params = json::array();
  auto value_of = [](const values& vs, const std::string& name) {
    auto* v = vs.find(name);
    return v ? json_of(values{{name, *v}})[name] : json(nullptr);
  };
  std::vector<std::string> names;
  for (auto* vs : {&x.a_params, &x.b_params})
    for (auto& [name, v] : *vs)
      if (std::find(names.begin(), names.end(), name) == names.end())
        names.push_back(name);
  for (auto& name : names)
    params.push_back(json{{"param", name}, {"a", value_of(x.a_params, name)},
                          {"b", value_of(x.b_params, name)}});
  return json{{"a", x.a}, {"b", x.b}, {"params", std::move(params)}, {"nodes", std::move(rows)}};
}

} // namespace soma::web
