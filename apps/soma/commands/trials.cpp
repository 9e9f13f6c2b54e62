#include "commands/trials.hpp"

#include <optional>
#include <ostream>
#include <string>

#include <CLI/CLI.hpp>

#include "output.hpp"
#include "soma/store/readings.hpp"
#include "soma/store/standing.hpp"
#include "soma/store/trials.hpp"
#include "table.hpp"

namespace soma::cli {

namespace {

void show_studies(const store& s, const invocation& inv, std::ostream& out, std::ostream& err) {
  auto rows = studies(s);
  if (for_script(inv))
    return print_rows(out, inv, rows);
  table t{{{"study"},
           {"trials", align::right},
           {"waiting", align::right},
           {"claimed", align::right},
           {"done", align::right},
           {"broke", align::right},
           {"abandoned", align::right},
           {"function"},
           {"created"}}};
  for (auto& r : rows)
    t.add({r.study.name, std::to_string(r.study.trials), std::to_string(r.waiting),
           std::to_string(r.claimed), std::to_string(r.done), std::to_string(r.broke),
           std::to_string(r.abandoned), r.study.function.empty() ? "-" : r.study.function,
           utc(r.study.created_us)});
  t.print(out, true);
  if (t.empty())
    err << "soma: the store '" << s.path() << "' has no study yet; soma::add_trials makes one "
           "(docs/trials.md)\n";
}

// One row per attempt: a trial's abandoned attempts, then where it stands.
void show_study(const store& s, const invocation& inv, std::ostream& out) {
  auto rows = trials(s, inv.study);
  auto latest = standing(s);
  quietness quiet{latest};

  if (for_script(inv))
    return print_rows(out, inv, web::trials_json(rows, latest));
  table t{{{"trial", align::right},
           {"attempt", align::right},
           {"state"},
           {"claimant"},
           {"quiet", align::right},
           {"run"},
           {"result"},
           {"params"},
           {"error"}}};
  for (auto& r : rows) {
    auto params = r.params.empty() ? std::string{"-"} : r.params.text();
    for (auto& a : r.abandoned)
      t.add({std::to_string(r.number), std::to_string(a.attempt), "abandoned", a.claimant, "-",
             a.run, "-", params, a.why});
    auto q = r.state == trial_state::claimed ? quiet.of(latest, r.claimant) : std::nullopt;
    // A waiting trial has no attempt under way ("attempt" in --json counts
    // those made so far; its abandoned rows show each).
    t.add({std::to_string(r.number), r.state != trial_state::waiting ? std::to_string(r.attempt) : "-",
           to_string(r.state), r.claimant.empty() ? "-" : r.claimant,
           r.state != trial_state::claimed ? "-" : q ? duration(*q * 1e6) : "no reading",
           r.run.empty() ? "-" : r.run, r.result.empty() ? "-" : r.result.text(), params,
           r.error.empty() ? "-" : r.error});
  }
  t.print(out);
}

} // namespace

finish add_trials(command_line& line) {
  auto* trials = line.app.add_subcommand(
    "trials", "the studies in the store; with STUDY, each of its trials: parameters, state, "
              "claimant and its quiet_s, run, result");
  trials->add_option("STUDY", line.inv.study, "the study");
  common_options(*trials, line);
  return finish_as(trials, command::trials);
}

void show_trials(const store& s, const invocation& inv, std::ostream& out, std::ostream& err) {
  if (inv.study.empty())
    show_studies(s, inv, out, err);
  else
    show_study(s, inv, out);
}

} // namespace soma::cli
