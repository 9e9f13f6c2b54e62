#include "commands/forwards.hpp"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "output.hpp"
#include "soma/store/readers.hpp"
#include "table.hpp"

namespace soma::cli {

namespace {

// The forwards of inv.run that `inv` asks for: all of them (one scan), or
// the first or last N (a seek and N records).
std::vector<record> asked_forwards(const store& s, const invocation& inv) {
  if (!inv.first && !inv.last)
    return forwards(s, inv.run);
  if (inv.first)
    return forwards(s, inv.run, 0, *inv.first).records;
  auto total = forwards(s, inv.run, 0, 0).total;
  auto count = std::min<std::uint64_t>(total, *inv.last);
  return forwards(s, inv.run, total - count, static_cast<std::size_t>(count)).records;
}

} // namespace

finish add_forwards(command_line& line) {
  auto* forwards = line.app.add_subcommand("forwards", "every forward of RUN, step by step");
  forwards->add_option("RUN", line.inv.run, "the run")->required();
  auto window = std::make_shared<row_window>(*forwards, "forwards");
  common_options(*forwards, line);
  return finish_as(forwards, command::forwards, window);
}

void show_forwards(const store& s, const invocation& inv, std::ostream& out) {
  auto rows = asked_forwards(s, inv);
  if (for_script(inv))
    return print_rows(out, inv, rows);
  // One column per summarised field, in order first seen; a forward that
  // did not tell it shows "-".
  std::vector<std::string> keys;
  std::vector<bool> numeric;
  for (auto& r : rows)
    for (auto& f : r.summary) {
      auto at = std::find(keys.begin(), keys.end(), f.key) - keys.begin();
      if (at == static_cast<std::ptrdiff_t>(keys.size())) {
        keys.push_back(f.key);
        numeric.push_back(true);
      }
      numeric[at] = numeric[at] && (f.value.is_number() || looks_numeric(f.value.str()));
    }
  std::vector<column> columns{
    {"forward", align::right}, {"state"}, {"nodes", align::right}, {"took", align::right}};
  for (std::size_t i = 0; i < keys.size(); ++i)
    columns.push_back({keys[i], numeric[i] ? align::right : align::left});
  columns.push_back({"when"});
  table t{std::move(columns)};
  for (auto& r : rows) {
    std::vector<std::string> cells{std::to_string(r.forward), std::string{to_string(r.state)},
                                   std::to_string(r.nodes), duration(static_cast<double>(r.took_us))};
    for (auto& key : keys) {
      std::string value = "-";
      for (auto& f : r.summary)
        if (f.key == key)
          value = readable(f.value.str());
      cells.push_back(value);
    }
    cells.push_back(utc_seconds(r.when_s()));
    t.add(std::move(cells));
  }
  t.print(out);
}

} // namespace soma::cli
