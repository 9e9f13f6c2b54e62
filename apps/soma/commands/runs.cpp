#include "commands/runs.hpp"

#include <algorithm>
#include <memory>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "nearest.hpp"
#include "output.hpp"
#include "soma/store/readers.hpp"
#include "soma/store/run_query.hpp"
#include "table.hpp"
#include "usage_error.hpp"

namespace soma::cli {

namespace {

// `soma runs`' filters and order.
void runs_options(CLI::App& runs, invocation& inv) {
  runs.add_option("PREFIX", inv.prefix, "only runs whose id starts with PREFIX");
  runs.add_option("--status", inv.statuses,
                  "only runs that stand so: running, finished, died or unknown (repeatable: any "
                  "of them)")
    ->option_text("S");
  runs.add_option("--tag", inv.tags, "only runs with this tag (repeatable: all of them)")
    ->option_text("WORD");
  runs.add_option("--param", inv.params,
                  "only runs with this parameter: NAME=VALUE, or NAME for any value (repeatable: "
                  "all of them)")
    ->option_text("NAME[=VALUE]");
  runs.add_option("--where", inv.where,
                  "only runs whose summarised value compares so: KEY<NUMBER, <=, >, >=, = or !=; "
                  "KEY is a value's name (loss: its last), min:NAME or max:NAME (its least, its "
                  "greatest) (repeatable: all of them)")
    ->option_text("'KEY<NUMBER'");
  runs.add_option("--sort", inv.sort,
                  "order by: first (when it began; the default), last, run, status, forwards, "
                  "broke, duration, took, a summarised value (loss: its last; min:loss, max:loss), or a "
                  "parameter's NAME")
    ->option_text("KEY");
  runs.add_flag("--reverse", inv.reverse, "in the other order");
}

// A run's params for a table: "lr=0.05,seed=1", or "-".
std::string params_text(const values& params) {
  return params.empty() ? "-" : params.text();
}

} // namespace

finish add_runs(command_line& line) {
  auto* runs = line.app.add_subcommand("runs", "every run in the store, summed up, in the order they began");
  runs_options(*runs, line.inv);
  auto window = std::make_shared<row_window>(*runs, "runs");
  common_options(*runs, line);
  return finish_as(runs, command::runs, window, [&app = line.app](invocation& inv) {
    if (auto ok = check_query({inv.prefix, inv.statuses, inv.tags, inv.params, inv.where}); !ok)
      throw usage_error("--" + soma::describe(ok.error()) + "; " + help_hint(app));
  });
}

// Why `soma runs` lists nothing, said on stderr (stdout stays the table):
// an empty store, a name no run has (and the nearest), or how many runs the
// filters turned away.
void say_none(const store& s, const std::vector<run_row>& all, const invocation& inv,
              std::ostream& err) {
  if (all.empty()) {
    err << "soma: the store '" << s.path()
        << "' holds no run yet; a recorder writes one (docs/recording.md)\n";
    return;
  }
  auto total = std::to_string(all.size()) + (all.size() == 1 ? " run" : " runs");
  bool named = std::any_of(all.begin(), all.end(),
                           [&](const run_row& r) { return r.run.starts_with(inv.prefix); });
  if (!named) {
    std::vector<std::string> ids;
    for (auto& r : all)
      ids.push_back(r.run);
    auto near = did_you_mean(nearest(inv.prefix, ids));
    err << "soma: no run named or starting with '" << inv.prefix << "' among the store's " << total
        << (near.empty() ? "" : "; " + near) << '\n';
    return;
  }
  std::string asked = inv.prefix.empty() ? "" : " " + inv.prefix;
  for (auto& x : inv.statuses)
    asked += " --status " + x;
  for (auto& x : inv.tags)
    asked += " --tag " + x;
  for (auto& x : inv.params)
    asked += " --param '" + x + "'";
  for (auto& x : inv.where)
    asked += " --where '" + x + "'";
  err << "soma: 0 of " << total << " match" << (all.size() == 1 ? "es" : "") << asked << '\n';
}

void show_runs(const store& s, const invocation& inv, std::ostream& out, std::ostream& err) {
  std::vector<run_row> rows, all;
  try {
    all = runs(s);
    rows = select_runs(all, {inv.prefix, inv.statuses, inv.tags, inv.params, inv.where, inv.sort,
                             inv.reverse});
  } catch (const std::invalid_argument& e) {
    throw usage_error(std::string{"--sort "} + e.what());
  }
  if (rows.empty())
    say_none(s, all, inv, err);
  keep_asked(rows, inv);
  if (for_script(inv))
    return print_rows(out, inv, rows);
  // A column for the trials runs were recorded for, when any was: a run's
  // forwards can all be ok while its trial broke.
  bool trials = std::any_of(rows.begin(), rows.end(), [](auto& r) { return r.trial.has_value(); });
  std::vector<column> columns{{"run"},   {"status"}, {"forwards", align::right},
                              {"broke", align::right}, {"execs", align::right},
                              {"duration", align::right}, {"took", align::right},
                              {"first"}, {"last"}};
  // A column for each summarised value a run listed has: its last.
  std::vector<std::string> values;
  for (auto& r : rows)
    for (auto& v : r.summary_values)
      if (auto name = value_name(v); std::find(values.begin(), values.end(), name) == values.end())
        values.push_back(name);
  for (auto& name : values)
    columns.push_back({name, align::right});
  columns.push_back({"params"});
  columns.push_back({"tags"});
  if (trials)
    columns.push_back({"trial"});
  table t{std::move(columns)};
  for (auto& r : rows) {
    std::vector<std::string> cells{r.run, std::string{to_string(r.status)}, std::to_string(r.forwards),
                                   std::to_string(r.broke), std::to_string(r.execution_count()),
                                   r.duration_us ? duration(static_cast<double>(*r.duration_us)) : "-",
                                   duration(static_cast<double>(r.took_us)),
                                   utc_seconds(r.first), utc_seconds(r.last)};
    for (auto& name : values) {
      auto* v = value_named(r, name);
      cells.push_back(v ? readable(scalar{v->last}.str()) : "-");
    }
    cells.push_back(params_text(r.params));
    cells.push_back(list(r.tags));
    if (trials)
      cells.push_back(r.trial ? r.trial->study + " #" + std::to_string(r.trial->number) + " "
                                  + r.trial->state
                                  + (r.trial->error.empty() ? "" : ": " + r.trial->error)
                              : "-");
    t.add(std::move(cells));
  }
  t.print(out, true);
}

} // namespace soma::cli
