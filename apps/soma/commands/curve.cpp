#include "commands/curve.hpp"

#include <algorithm>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "output.hpp"
#include "soma/store/readers.hpp"
#include "soma/vocabulary.hpp"
#include "table.hpp"
#include "usage_error.hpp"

namespace soma::cli {

namespace {

// The series of run `run` a curve can name, as it names them: each number
// its first forward was told by a level above the engine, "loss" for a
// fact's "value", "fact.field" for another field. One fetch.
std::vector<std::string> series_of(const store& s, const std::string& run) {
  std::vector<std::string> names;
  for (auto& f : facts(s, run, 0)) {
    if (vocabulary::is_engine_word(f.name))
      continue;
    for (auto& field : f.fields) {
      if (!read_number(field.value))
        continue;
      auto name = field.key == "value" ? f.name : f.name + "." + field.key;
      if (std::find(names.begin(), names.end(), name) == names.end())
        names.push_back(std::move(name));
    }
  }
  return names;
}

} // namespace

finish add_curve(command_line& line) {
  auto& inv = line.inv;
  auto* curve = line.app.add_subcommand("curve", "the series of NAME over RUN");
  curve->add_option("RUN", inv.run, "the run")->required();
  curve->add_option("NAME", inv.name, "a fact (its \"value\") or fact.field, e.g. loss")
    ->required();
  auto window = std::make_shared<row_window>(*curve, "points");
  common_options(*curve, line);
  return finish_as(curve, command::curve, window);
}

void show_curve(const store& s, const invocation& inv, std::ostream& out) {
  auto cost = curve_cost::scan;
  auto points = curve(s, inv.run, inv.name, &cost); // the cost it really took
  if (points.empty()) {
    auto names = series_of(s, inv.run);
    throw usage_error("no forward of run '" + inv.run + "' told '" + inv.name + "'; "
                      + (names.empty() ? std::string{"its first forward told no number of its own"}
                                       : "its series are " + list(names))
                      + " (`soma facts " + inv.run + " 0` shows what a forward told)");
  }
  keep_asked(points, inv);
  if (for_script(inv))
    return print_rows(out, inv, points);
  out << "# curve of " << inv.name << " over run " << inv.run << ": " << to_string(cost)
      << (cost == curve_cost::scan ? " (one scan of records)" : " (a fetch per forward)")
      << '\n';
  table t{{{"forward", align::right}, {"value", align::right}}};
  for (auto& [n, value] : points)
    t.add({std::to_string(n), readable(text(value))});
  t.print(out);
}

} // namespace soma::cli
