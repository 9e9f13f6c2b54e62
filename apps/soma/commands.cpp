#include "commands.hpp"

#include <algorithm>
#include <ostream>
#include <string>

#include "commands/cache.hpp"
#include "commands/check.hpp"
#include "commands/compare.hpp"
#include "commands/copy.hpp"
#include "commands/curve.hpp"
#include "commands/delete.hpp"
#include "commands/facts.hpp"
#include "commands/fleet.hpp"
#include "commands/forwards.hpp"
#include "commands/health.hpp"
#include "commands/live.hpp"
#include "commands/nodes.hpp"
#include "commands/plot.hpp"
#include "commands/reclaim.hpp"
#include "commands/runs.hpp"
#include "commands/serve.hpp"
#include "commands/standing.hpp"
#include "commands/trace.hpp"
#include "commands/critical.hpp"
#include "commands/trials.hpp"
#include "soma/web/opened_store.hpp"
#include "several_stores.hpp"
#include "soma/store/fleet.hpp"
#include "soma/store/readings.hpp"
#include "nearest.hpp"
#include "soma/store/readers.hpp"
#include "usage_error.hpp"

namespace soma::cli {

namespace {

// What a command that reads one store answers.
int read(const store& s, const invocation& inv, std::ostream& out, std::ostream& err) {
  switch (inv.what) {
    case command::runs: show_runs(s, inv, out, err); break;
    case command::forwards: show_forwards(s, inv, out); break;
    case command::curve: show_curve(s, inv, out); break;
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
    case command::trials: show_trials(s, inv, out, err); break;
    case command::live: watch(s, inv, out); break;
    case command::health: return show_health(s, inv, out, err);
    case command::check: return show_check(s, inv, out, err);
    case command::serve: serve(s, inv, out, err); break;
    case command::trace: trace(s, inv, out, err); break;
    case command::critical: show_critical(s, inv, out); break;
    case command::cache_clear:
    case command::copy:
    case command::remove:
    case command::reclaim:
    case command::plot_graph: break;
  }
  return exit_ok;
}

// A run the store does not have, said with the runs nearest the name asked
// for: "no run 'lr.00' in the store 'S'; did you mean 'lr.0'? (...)".
std::string with_near_runs(const store& s, const invocation& inv, const no_run_error& e) {
  std::vector<std::string> held;
  try {
    for (auto& r : runs(s))
      held.push_back(r.run);
  } catch (const store_error&) {
    return e.what(); // what was wrong stands; the list is a courtesy
  }
  std::vector<std::string> asked{inv.run, inv.other};
  asked.insert(asked.end(), inv.runs.begin(), inv.runs.end());
  for (auto& name : asked) {
    if (name.empty() || std::find(held.begin(), held.end(), name) != held.end())
      continue;
    auto near = did_you_mean(nearest(name, held));
    if (near.empty())
      return e.what();
    return "no run '" + name + "' in the store '" + s.path() + "'; " + near
           + " (`soma runs` lists the runs it holds)";
  }
  return e.what();
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
    copy_store(inv, err);
    return exit_ok;
  }
  if (inv.store.find(',') != std::string::npos)
    return several_stores(inv, out, err);
  auto asked = inv; // live learns here whether it waited for the store
  if (asked.what == command::live && !wait_for_store(asked, err))
    return exit_ok; // stopped while waiting for the store
  // Read-only: a reader must never create a store where a typo pointed it,
  // nor change one it reads.
  web::opened_store opened{inv.store, store_options{.read_only = true}};
  auto& s = opened.get();
  try {
    return read(s, asked, out, err);
  } catch (const no_run_error& e) {
    throw no_run_error(with_near_runs(s, inv, e));
  }
}

} // namespace soma::cli

