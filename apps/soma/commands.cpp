#include "commands.hpp"
#include "opened_store.hpp"

#include <algorithm>
#include <charconv>
#include <functional>
#include <tuple>
#include <type_traits>
#include <variant>
#include <chrono>
#include <filesystem>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <unistd.h>

#include "compare.hpp"
#include "health.hpp"
#include "serve_command.hpp"
#include "soma/web/csv.hpp"
#include "soma/web/json.hpp"
#include "live_view.hpp"
#include "plot.hpp"
#include "soma/store/cache.hpp"
#include "soma/store/check.hpp"
#include "soma/store/deleting.hpp"
#include "soma/store/keys.hpp"
#include "soma/store/fleet.hpp"
#include "soma/store/readers.hpp"
#include "soma/store/run_query.hpp"
#include "soma/store/readings.hpp"
#include "soma/store/standing.hpp"
#include "soma/store/store.hpp"
#include "soma/store/trials.hpp"
#include "soma/vocabulary.hpp"
#include "output.hpp"
#include "table.hpp"
#include "usage_error.hpp"

namespace soma::cli {

using web::json;
using web::json_of;


using web::standing_json;
using web::trials_json;

namespace {

std::string decimal(double x, int digits = 1) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", digits, x);
  return buf;
}

// A value a row may not have: "-" when it has none.
template <class T, class Show>
std::string or_dash(const std::optional<T>& x, Show show) {
  return x ? show(*x) : "-";
}


std::string list(const std::vector<std::string>& xs) {
  if (xs.empty())
    return "-";
  std::string out;
  for (auto& x : xs)
    out += (out.empty() ? "" : ",") + x;
  return out;
}

// A run's params for a table: "lr=0.05,seed=1", or "-".
std::string params_text(const values& params) {
  return params.empty() ? "-" : params.text();
}

void show_runs(const store& s, const invocation& inv, std::ostream& out) {
  std::vector<run_row> rows;
  try {
    rows = select_runs(runs(s), {inv.prefix, inv.statuses, inv.tags, inv.params, inv.sort,
                                 inv.reverse});
  } catch (const std::invalid_argument& e) {
    throw usage_error(std::string{"--sort "} + e.what());
  }
  keep_asked(rows, inv);
  if (for_script(inv))
    return print_rows(out, inv, rows);
  // A column for the trials runs were recorded for, when any was: a run's
  // forwards can all be ok while its trial broke.
  bool trials = std::any_of(rows.begin(), rows.end(), [](auto& r) { return r.trial.has_value(); });
  std::vector<column> columns{{"run"},   {"status"}, {"forwards", align::right},
                              {"broke", align::right}, {"took", align::right},
                              {"first"}, {"last"},   {"params"}, {"tags"}};
  if (trials)
    columns.push_back({"trial"});
  table t{std::move(columns)};
  for (auto& r : rows) {
    std::vector<std::string> cells{r.run, std::string{to_string(r.status)}, std::to_string(r.forwards),
                                   std::to_string(r.broke), duration(static_cast<double>(r.took_us)),
                                   utc_seconds(r.first), utc_seconds(r.last), params_text(r.params),
                                   list(r.tags)};
    if (trials)
      cells.push_back(r.trial ? r.trial->study + " #" + std::to_string(r.trial->number) + " "
                                  + r.trial->state
                                  + (r.trial->error.empty() ? "" : ": " + r.trial->error)
                              : "-");
    t.add(std::move(cells));
  }
  t.print(out);
}

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

void show_curve(const store& s, const invocation& inv, std::ostream& out, std::ostream&) {
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

void show_facts(const store& s, const invocation& inv, std::ostream& out) {
  auto told = facts(s, inv.run, inv.forward);
  if (for_script(inv))
    return print_rows(out, inv, told);
  // A fact read back is the very line a watcher printed: one JSON object a
  // line is its human form, as in the seed.
  for (auto& f : told)
    out << to_json(f) << '\n';
}

void show_nodes(const store& s, const invocation& inv, std::ostream& out) {
  auto rows = nodes(s, inv.run, inv.last);
  if (for_script(inv))
    return print_rows(out, inv, rows);
  table t{{{"node"},
           {"ran", align::right},
           {"recalled", align::right},
           {"failed", align::right},
           {"took", align::right},
           {"hosts"},
           {"devices"},
           {"mean", align::right}}};
  for (auto& r : rows)
    t.add({r.node, std::to_string(r.ran), std::to_string(r.recalled), std::to_string(r.failed),
           duration(static_cast<double>(r.took_us)), list(r.hosts), list(r.devices),
           duration(r.mean_us)});
  t.print(out);
}

void show_cache(const store& s, const invocation& inv, std::ostream& out) {
  auto rows = cache_entries(s, inv.node);
  if (for_script(inv))
    return print_rows(out, inv, rows);
  table t{{{"node"}, {"type"}, {"version"}, {"bytes", align::right}, {"kept_at"}}};
  for (auto& r : rows)
    t.add({r.node, r.type, r.version, std::to_string(r.bytes), utc_seconds(r.kept_at)});
  t.print(out);
}

void show_standing(const std::map<std::string, reading>& latest, const std::string& where,
                   const invocation& inv, std::ostream& out, std::ostream& err) {
  quietness quiet{latest};
  auto quiet_s = [&](const reading& r) { return quiet.of(r); };
  if (for_script(inv))
    return print_rows(out, inv, standing_json(latest));
  table t{{{"id"},
           {"busy", align::right},
           {"memory", align::right},
           {"cores", align::right},
           {"up", align::right},
           {"served", align::right},
           {"claims"},
           {"trials", align::right},
           {"when"},
           {"quiet", align::right},
           {"listens"},
           {"serves"}}};
  for (auto& [id, r] : latest) {
    // What it serves: its node types, and the store it serves, if any.
    auto serves = list(r.serves);
    if (!r.serves_store.empty())
      serves = (r.serves.empty() ? "" : serves + ",") + "store:" + r.serves_store;
    t.add({id, decimal(r.busy, 2), decimal(r.memory, 2), std::to_string(r.cores),
           duration(static_cast<double>(r.up_us)), std::to_string(r.served),
           r.claims.empty() ? "-" : r.claims, r.claims.empty() ? "-" : std::to_string(r.trials),
           utc(r.when_us), duration(quiet_s(r) * 1e6), r.listens.empty() ? "-" : r.listens,
           serves});
  }
  t.print(out, true);
  // Said beside the table, not in it: stdout stays the table a script reads.
  if (t.empty())
    err << "soma: no machine has written readings into the store '" << where
        << "'; a worker started with `soma-node --store DIR --reporting SECONDS` writes one on "
           "that clock\n";
}

void show_fleet(const std::vector<fleet_row>& rows, const invocation& inv, std::ostream& out) {
  if (for_script(inv))
    return print_rows(out, inv, rows);
  table t{{{"host"},
           {"machine"},
           {"slices", align::right},
           {"took", align::right},
           {"waiting", align::right},
           {"busy", align::right},
           {"served", align::right},
           {"claims"},
           {"trials", align::right},
           {"quiet", align::right}}};
  for (auto& r : rows)
    t.add({r.host, r.machine.empty() ? "-" : r.machine, std::to_string(r.slices),
           duration(static_cast<double>(r.took_us)), duration(static_cast<double>(r.waiting_us)),
           or_dash(r.busy, [](double x) { return decimal(x, 2); }),
           or_dash(r.served, [](std::uint64_t x) { return std::to_string(x); }),
           r.claims.empty() ? "-" : r.claims,
           r.claims.empty() ? "-" : or_dash(r.trials, [](std::uint64_t x) { return std::to_string(x); }),
           or_dash(r.quiet_s, [](double x) { return duration(x * 1e6); })});
  t.print(out);
}

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
void show_trials(const store& s, const invocation& inv, std::ostream& out) {
  auto rows = trials(s, inv.study);
  auto latest = standing(s);
  quietness quiet{latest};

  if (for_script(inv))
    return print_rows(out, inv, trials_json(rows, latest));
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

void reclaim_trials(const invocation& inv, std::ostream& out, std::ostream& err) {
  { opened_store exists{inv.store, store_options{.read_only = true}}; }
  opened_store opened{inv.store, {}};
  auto handed = reclaim(opened.get(), inv.study, inv.quiet_over);
  if (for_script(inv)) {
    auto array = json::array();
    for (auto n : handed)
      array.push_back(json{{"trial", n}});
    print_rows(out, inv, array);
  } else {
    for (auto n : handed)
      out << "handed back trial " << n << '\n';
  }
  err << "soma: handed back " << handed.size() << " trial" << (handed.size() == 1 ? "" : "s")
      << " of '" << inv.study << "' whose claimants' readings were more than " << decimal(inv.quiet_over)
      << " s behind the newest writer's; `soma trials " << inv.study << "` shows the attempts\n";
}

void clear_cache(const invocation& inv, std::ostream& out, std::ostream& err) {
  // Writes, but only to a store that is there: opening it read-only first
  // says so without creating one where a typo pointed.
  { opened_store exists{inv.store, store_options{.read_only = true}}; }
  opened_store opened{inv.store, {}};
  auto cleared = cache_clear(opened.get(), inv.node);
  if (inv.csv)
    print_rows(out, inv, json::array({json{{"cleared", cleared}}}));
  else if (inv.json)
    out << json::array({json{{"cleared", cleared}}}).dump() << '\n';
  else
    out << "forgot " << cleared << " kept output" << (cleared == 1 ? "" : "s")
        << (inv.node ? " of node '" + *inv.node + "'" : std::string{}) << '\n';
  if (cleared == 0) {
    if (inv.node)
      err << "soma: the cache holds no output of a node named '" << *inv.node
          << "'; `soma cache ls` lists the nodes it holds outputs of\n";
    else
      err << "soma: the cache was empty already\n";
  }
}

// Every damaged entry, one a row, then what was checked. Damage a check
// finds while opening (a cut-off file) is a store_error like any reader's.
int show_check(const store& s, const invocation& inv, std::ostream& out, std::ostream& err) {
  auto began = std::chrono::steady_clock::now();
  auto report = check(s);
  auto ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - began)
              .count();
  if (for_script(inv)) {
    auto array = json::array();
    for (auto& d : report.damaged)
      array.push_back(json{{"database", d.database}, {"key", d.key}, {"what", d.what}});
    print_rows(out, inv, array);
  } else if (!report.damaged.empty()) {
    table t{{{"database"}, {"key"}, {"what"}}};
    for (auto& d : report.damaged)
      t.add({d.database, d.key, d.what});
    t.print(out);
  }
  err << "soma: checked " << report.entries << " entries of the store '" << s.path() << "' in "
      << decimal(ms, 0) << " ms: "
      << (report.damaged.empty() ? std::string{"no damage found"}
                                 : std::to_string(report.damaged.size()) + " damaged")
      << '\n';
  return report.damaged.empty() ? exit_ok : exit_damaged;
}

// `soma standing|fleet --store A,B,...`: a fleet whose machines report into
// several stores, each serving a share of its hosts (docs/scale.md): their
// machines merged, and a run's fleet read from the store that holds it.
int several_stores(const invocation& inv, std::ostream& out, std::ostream& err) {
  if (inv.what != command::standing && inv.what != command::fleet)
    throw usage_error("--store names several stores (A,B,...) only for `soma standing` and `soma "
                      "fleet`, which merge their machines; give every other command one store");
  std::vector<std::unique_ptr<opened_store>> opened;
  std::vector<store> stores;
  for (std::size_t at = 0; at <= inv.store.size();) {
    auto comma = std::min(inv.store.find(',', at), inv.store.size());
    auto one = inv.store.substr(at, comma - at);
    if (one.empty())
      throw usage_error("--store " + inv.store + ": an empty store between commas");
    opened.push_back(std::make_unique<opened_store>(one, store_options{.read_only = true}));
    stores.push_back(opened.back()->get());
    at = comma + 1;
  }
  auto latest = standing(stores);
  if (inv.what == command::standing) {
    show_standing(latest, inv.store, inv, out, err);
    return exit_ok;
  }
  for (auto& s : stores) {
    try {
      show_fleet(fleet(s, inv.run, latest, {.only_the_run = !inv.all_machines}), inv, out);
      return exit_ok;
    } catch (const store_error& e) {
      if (e.trouble() != store_trouble::missing)
        throw;
      // in another of them
    }
  }
  throw no_run_error("no run '" + inv.run + "' in any of the stores " + inv.store
                     + "; `soma runs --store STORE` lists a store's runs");
}

// soma delete RUN...: checks every run first (each there; none still
// recorded, unless --force), asks once unless --yes, then deletes them one
// transaction each. Asking needs a terminal: without one, and without
// --yes, it deletes nothing and says so.
void delete_runs(const invocation& inv, std::ostream& err) {
  { opened_store exists{inv.store, store_options{.read_only = true}}; }
  opened_store opened{inv.store, {}};
  auto& s = opened.get();
  std::vector<run_row> rows;
  for (auto& run : inv.runs) {
    if (auto ok = check_run_id(run); !ok)
      throw usage_error("cannot delete a run named '" + run + "': " + describe(ok.error()));
    auto row = run_summary(s, run); // names a run the store does not have
    if (row.status == run_status::running && !inv.force)
      throw usage_error("run '" + run + "' is still being recorded (" + row.how
                        + "); stop its recorder first, or give --force to delete it anyway");
    rows.push_back(std::move(row));
  }
  std::uint64_t forwards = 0;
  for (auto& r : rows)
    forwards += r.forwards;
  auto what = std::to_string(rows.size()) + (rows.size() == 1 ? " run" : " runs") + " ("
              + std::to_string(forwards) + " forwards) from the store '" + s.path() + "'";
  if (!inv.yes) {
    if (!::isatty(STDIN_FILENO))
      throw usage_error("not deleting " + what + " without asking, and there is no terminal to "
                        "ask at; give --yes to delete without asking");
    err << "soma: delete " << what << ": ";
    for (std::size_t i = 0; i < rows.size(); ++i)
      err << (i > 0 ? ", " : "") << rows[i].run;
    err << "? [y/N] " << std::flush;
    std::string answer;
    std::getline(std::cin, answer);
    if (answer != "y" && answer != "yes") {
      err << "soma: deleted nothing\n";
      return;
    }
  }
  for (auto& r : rows)
    delete_run(s, r.run);
  err << "soma: deleted " << what << '\n';
}

} // namespace

int run(const invocation& inv, std::ostream& out, std::ostream& err) {
  if (inv.what == command::remove) {
    delete_runs(inv, err);
    return exit_ok;
  }
  if (inv.what == command::cache_clear) {
    clear_cache(inv, out, err);
    return exit_ok;
  }
  if (inv.what == command::reclaim) {
    reclaim_trials(inv, out, err);
    return exit_ok;
  }
  if (inv.what == command::plot_graph) {
    plot_graph(inv, out);
    return exit_ok;
  }
  if (inv.what == command::copy) {
    auto began = std::chrono::steady_clock::now();
    opened_store from{inv.from, store_options{.read_only = true}};
    from.get().copy_to(inv.into);
    std::error_code ec;
    auto bytes = std::filesystem::file_size(std::filesystem::path{inv.into} / "data.mdb", ec);
    auto ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - began)
                .count();
    err << "soma: copied the store '" << from.get().path() << "' into '" << inv.into << "' ("
        << (ec ? std::string{"?"} : std::to_string(bytes)) << " bytes) in " << decimal(ms, 0)
        << " ms\n";
    return exit_ok;
  }
  if (inv.store.find(',') != std::string::npos)
    return several_stores(inv, out, err);
  if (inv.what == command::live && !wait_for_store(inv, err))
    return exit_ok; // stopped while waiting for the store
  // Read-only: a reader must never create a store where a typo pointed it,
  // nor change one it reads.
  opened_store opened{inv.store, store_options{.read_only = true}};
  auto& s = opened.get();
  switch (inv.what) {
    case command::runs: show_runs(s, inv, out); break;
    case command::forwards: show_forwards(s, inv, out); break;
    case command::curve: show_curve(s, inv, out, err); break;
    case command::facts: show_facts(s, inv, out); break;
    case command::nodes: show_nodes(s, inv, out); break;
    case command::compare: show_compare(s, inv, out); break;
    case command::cache_ls: show_cache(s, inv, out); break;
    case command::standing: show_standing(standing(s), s.path(), inv, out, err); break;
    case command::fleet:
      show_fleet(fleet(s, inv.run, {.only_the_run = !inv.all_machines}), inv, out);
      break;
    case command::plot_progress:
    case command::plot_spent:
    case command::plot_machines:
    case command::plot_study: plot(s, inv, out); break;
    case command::trials:
      if (inv.study.empty())
        show_studies(s, inv, out, err);
      else
        show_trials(s, inv, out);
      break;
    case command::live: watch(s, inv, out); break;
    case command::health: return show_health(s, inv, out, err);
    case command::check: return show_check(s, inv, out, err);
    case command::serve: serve(s, inv, out, err); break;
    case command::trace: trace(s, inv, out, err); break;
    case command::cache_clear:
    case command::copy:
    case command::remove:
    case command::reclaim:
    case command::plot_graph: break;
  }
  return exit_ok;
}

} // namespace soma::cli
