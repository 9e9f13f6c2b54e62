#include "commands/compare.hpp"

#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include "soma/web/compare.hpp"
#include "soma/web/csv.hpp"
#include "table.hpp"

namespace soma::cli {

namespace {

using web::json;

// The measures side by side, in the order the table and the CSV show them:
// their key in the JSON, and whether it is a time (microseconds).
struct measure {
  const char* key;
  const char* name;
  bool time;
};
constexpr measure measures[] = {{"mean_us", "mean", true},    {"took_us", "took", true},
                                {"ran", "ran", false},        {"recalled", "recalled", false},
                                {"failed", "failed", false}};

// A cell of the table: a time as `soma nodes` shows one, a count as it is;
// a difference with its sign ("+1.20ms", "-3", "0"); "-" for a side the
// node is missing from.
std::string shown(const json& v, bool time, bool signed_) {
  if (v.is_null())
    return "-";
  auto x = v.get<double>();
  auto text = time ? duration(x) : v.dump();
  return signed_ && x > 0 ? "+" + text : text;
}

// A cell of the CSV: the JSON's number as it is (microseconds, counts,
// unrounded), or empty.
std::string raw(const json& v) {
  return v.is_null() ? std::string{} : v.dump();
}

} // namespace

finish add_compare(command_line& line) {
  auto& inv = line.inv;
  auto* compare = line.app.add_subcommand(
    "compare", "two runs side by side, node by node: each node's mean and total time, ran, "
               "recalled and failed in RUN_A and RUN_B, and the difference B - A");
  compare->add_option("RUN_A", inv.run, "the run")->required();
  compare->add_option("RUN_B", inv.other, "the run to compare it with")->required();
  common_options(*compare, line);
  return finish_as(compare, command::compare);
}

void show_compare(const store& s, const invocation& inv, std::ostream& out) {
  // The table and the CSV are made from the JSON, so the three say the same.
  auto j = web::json_of(web::compare_runs(s, inv.run, inv.other));
  if (inv.json) {
    out << j.dump(2) << '\n';
    return;
  }
  auto at = [](const json& row, const char* side, const char* key) {
    return row[side].is_null() ? json(nullptr) : row[side][key];
  };
  if (inv.csv) {
    std::vector<std::string> header{"node"};
    for (auto& m : measures)
      for (auto* side : {"a_", "b_", "diff_"})
        header.push_back(side + std::string{m.key});
    out << web::csv_line(header);
    for (auto& row : j["nodes"]) {
      std::vector<std::string> cells{row["node"].get<std::string>()};
      for (auto& m : measures)
        for (auto* side : {"a", "b", "difference"})
          cells.push_back(raw(at(row, side, m.key)));
      out << web::csv_line(cells);
    }
    return;
  }
  out << "# A: " << inv.run << ", B: " << inv.other << "; diff: B - A\n";
  if (!j["params"].empty()) {
    // What each run was, side by side: "# params: lr 0.05 | 0.5, seed 7 | -".
    std::string said;
    for (auto& p : j["params"]) {
      auto one = [](const json& v) { return v.is_null() ? std::string{"-"} : v.is_string() ? v.get<std::string>() : v.dump(); };
      said += (said.empty() ? "" : ", ") + p["param"].get<std::string>() + " " + one(p["a"]) + " | "
              + one(p["b"]);
    }
    out << "# params (A | B): " << said << '\n';
  }
  std::vector<column> columns{{"node"}};
  for (auto& m : measures)
    for (auto* side : {"a_", "b_", "diff_"})
      columns.push_back({side + std::string{m.name}, align::right});
  table t{std::move(columns)};
  for (auto& row : j["nodes"]) {
    std::vector<std::string> cells{row["node"].get<std::string>()};
    for (auto& m : measures)
      for (auto* side : {"a", "b", "difference"})
        cells.push_back(shown(at(row, side, m.key), m.time, side == std::string_view{"difference"}));
    t.add(std::move(cells));
  }
  t.print(out, true);
}

} // namespace soma::cli
