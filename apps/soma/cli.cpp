#include "cli.hpp"

#include <algorithm>
#include <ostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "nearest.hpp"
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
#include "soma/store/store.hpp"
#include "soma/version.hpp"
#include "subcommand.hpp"
#include "usage_error.hpp"

namespace soma::cli {

namespace {

constexpr const char* synopsis = "soma runs | forwards RUN | curve RUN NAME | facts RUN N | "
                                 "nodes RUN [--last N] | compare RUN_A RUN_B | cache ls|clear [--node NAME] | "
                                 "standing | fleet RUN | trials [STUDY] | "
                                 "reclaim STUDY --quiet-over S | "
                                 "health [RUN] [--rules FILE] [--at TIME | --replay FROM..TO [--compare FILE]] [--fail-on firing] | "
                                 "plot progress|spent|machines RUN -o FILE | plot study STUDY -o FILE | "
                                 "plot graph -o FILE PROGRAM | live --run RUN | check | copy FROM DIR | "
                                 "serve [--listen HOST:PORT] | trace RUN [--forward N | --last N] -o FILE | "
                                 "critical RUN [--last N] | "
                                 "delete RUN... [--yes] [--force]";

// What each reader costs, on the help page: the seed's price list, since a
// reader that is quietly a thousand times slower is worse than one that says so.
constexpr const char* price_list = R"(What each command costs:
  runs       one read per run (its writer keeps its totals)
  forwards   one scan of the run's records
  curve      one scan if the recorder summarised NAME, else a fetch per forward
             (the table's first line says which)
  facts      one fetch
  nodes      a fetch per forward read (--last N reads only the last N)
  compare    a fetch per forward of each of the two runs (nodes of each)
  cache ls   one scan of the cache
  standing   one scan of the machines' latest readings (one entry a machine)
  fleet      a fetch per forward of RUN, plus what standing costs
  trials     one scan of every study's trials; with STUDY, one scan of its
             trials plus what standing costs (for claimants' quiet_s)
  health     each machine's readings back as far as a rule looks, each run's
             last 200 records and last 100 fact blobs, every study's trials
             (--replay: each machine's kept readings, each run's forwards in
             the window with their fact blobs, once; then the rules that
             must judge again at each step)
  plot       what the reader it draws costs: progress as curve, spent as
             nodes, machines a fetch per forward, study trials STUDY and a
             curve per trial; graph runs PROGRAM
  live       the first redraw one scan of the run; then, every --interval ms,
             only what is new and a fetch per new forward of the last 100
  check      one scan of the whole store (on the host that holds it, for a
             served store)
  copy       the whole store, compacted: over a served store its every byte
             crosses the wire, in parts of 4 MiB (the only command that does)
  serve      per page what its reader costs (docs/web.md lists them); a live
             page looks whether the store moved every 25 ms (no transaction)
             and reads only what is new
  trace      the last N forwards' records and a fetch per forward (one fetch
             with --forward N)
  critical   the last N forwards' records and a fetch per forward

The store is only ever opened read-only, reading never creates or changes it;
`soma cache clear` and `soma reclaim` alone write, and only to a store that exists.
Exit status: 0 when it answered (`soma health` too, whatever it finds); 2 for
bad usage, a missing store, an unknown run or forward, or a damaged record
(and for `soma check`, any damage found); 3 for `soma health --fail-on
firing` when an opinion fires.)";

// CLI11's message, made to name the thing the way this command does.
// "did you mean 'forwards'? " for a command a typo away from `typed`, else "".
std::string did_you_mean(const std::string& typed, const CLI::App& app) {
  std::vector<std::string> names;
  for (auto* sub : app.get_subcommands([](const CLI::App*) { return true; }))
    names.push_back(sub->get_name());
  auto near = cli::did_you_mean(nearest(typed, names, 1));
  return near.empty() ? "" : near + " ";
}

// For an option `typed` that `app` does not have: "; did you mean '--last'?"
// naming the nearest of its options (and those of the commands above it),
// or "".
std::string nearest_option(const std::string& typed, const CLI::App& app) {
  // Not offered: what the command hides (--json where no rows are printed),
  // here or as the same option of a command above it.
  std::vector<std::string> hidden, names;
  for (auto* o : app.get_options([](const CLI::Option*) { return true; }))
    if (o->get_group().empty())
      for (auto& l : o->get_lnames())
        hidden.push_back(l);
  for (auto* at = &app; at != nullptr; at = at->get_parent())
    for (auto* o : at->get_options([](const CLI::Option*) { return true; })) {
      bool offered = !o->get_group().empty()
                     && std::none_of(o->get_lnames().begin(), o->get_lnames().end(), [&](auto& l) {
                          return std::find(hidden.begin(), hidden.end(), l) != hidden.end();
                        });
      if (!offered)
        continue;
      for (auto& l : o->get_lnames())
        names.push_back("--" + l);
      for (auto& n : o->get_snames())
        names.push_back("-" + n);
    }
  auto flag = typed.substr(0, typed.find('='));
  auto near = cli::did_you_mean(nearest(flag, names, 1));
  return near.empty() ? "" : "; " + near;
}

std::string describe(const CLI::ParseError& e, const CLI::App& app) {
  std::string what = e.what();
  if (app.get_subcommands().empty()) {
    // CLI11 says "a subcommand is required" even when one was typed wrong.
    auto extras = app.remaining();
    if (!extras.empty() && extras.front().starts_with('-'))
      return "unknown option '" + extras.front() + "' (" + help_hint(app) + ")";
    if (!extras.empty())
      return "unknown command '" + extras.front() + "'; " + did_you_mean(extras.front(), app)
             + "the commands are: " + synopsis + " (" + help_hint(app) + ")";
    if (dynamic_cast<const CLI::RequiredError*>(&e))
      return std::string{"say what to read: "} + synopsis + " (" + help_hint(app) + ")";
  }
  // A command of commands (plot, cache) given none, or one it does not have:
  // CLI11 says "A subcommand is required" either way; say which, and the choices.
  const CLI::App* typed = &app;
  while (!typed->get_subcommands().empty())
    typed = typed->get_subcommands().front();
  auto choices = typed->get_subcommands([](const CLI::App*) { return true; });
  // A required argument that is both positional and an option (`live RUN`,
  // `--run RUN`): CLI11 names the option; name it as --help shows it first.
  if (dynamic_cast<const CLI::RequiredError*>(&e))
    for (auto* o : typed->get_options([](const CLI::Option*) { return true; }))
      if (o->get_positional() && !o->get_lnames().empty()
          && what.starts_with("--" + o->get_lnames().front() + " is required"))
        return o->get_name(true) + " is required (or --" + o->get_lnames().front() + " "
               + o->get_name(true) + "); " + help_hint(app);
  // An option the command does not have: name it, and the nearest it has
  // (CLI11 says "The following arguments were not expected: 3 --lst").
  if (dynamic_cast<const CLI::ExtrasError*>(&e)) {
    for (auto& extra : typed->remaining())
      if (extra.starts_with('-') && extra.size() > 1)
        return "unknown option '" + extra + "' for soma " + typed->get_name()
               + nearest_option(extra, *typed) + " (" + help_hint(app) + ")";
  }
  if (typed != &app && !choices.empty() && dynamic_cast<const CLI::RequiredError*>(&e)) {
    std::string names;
    for (auto* c : choices)
      names += (names.empty() ? "" : ", ") + c->get_name();
    auto extras = typed->remaining();
    auto name = "soma " + typed->get_name();
    if (!extras.empty() && !extras.front().starts_with('-'))
      return name + " has no '" + extras.front() + "'; it takes one of: " + names + " ("
             + help_hint(app) + ")";
    return name + " needs one of: " + names + " (" + help_hint(app) + ")";
  }
  return what + "; " + help_hint(app);
}

// The price list and the exit statuses are said once, by `soma --help`;
// each subcommand's help points there instead of repeating them.
void point_up(CLI::App& parent) {
  for (auto* sub : parent.get_subcommands([](const CLI::App*) { return true; })) {
    sub->footer("What each command costs, and the exit statuses: `soma --help`.");
    point_up(*sub);
  }
}

// The arguments as CLI11 is to read them: `soma help` and `soma help CMD`
// are `soma --help` and `soma CMD --help`.
std::vector<std::string> arguments(int argc, const char* const* argv, const CLI::App& app) {
  std::vector<std::string> args{argv, argv + argc};
  if (args.size() >= 2 && args[1] == "help") {
    // `soma help NOPE` names what it does not know, and the commands it does.
    if (args.size() >= 3 && !args[2].starts_with("-")) {
      std::string known;
      bool found = false;
      for (auto* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
        found |= sub->get_name() == args[2];
        known += (known.empty() ? "" : ", ") + sub->get_name();
      }
      if (!found)
        throw usage_error("there is no command '" + args[2] + "' to help with; the commands are "
                          + known);
    }
    args.erase(args.begin() + 1);
    args.push_back("--help");
  }
  return args;
}

} // namespace

std::optional<invocation> parse(int argc, const char* const* argv, std::ostream& out) {
  invocation inv;
  CLI::App app{"soma: read back what recorders wrote to a store, at a price it names.", "soma"};
  app.footer(price_list);
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string{"soma "} + soma::version);
  std::vector<CLI::Option*> stores;
  command_line line{app, inv, stores};
  // Before the subcommand too (`soma --json runs`), as users of git expect.
  common_options(app, line);
  // In the order `soma --help` lists them (a braced list is evaluated in order).
  std::vector<finish> subcommands{
    add_runs(line),    add_forwards(line), add_curve(line),   add_facts(line),
    add_nodes(line),   add_compare(line),  add_cache(line),   add_standing(line),
    add_fleet(line),   add_trials(line),   add_reclaim(line), add_health(line),
    add_plot(line),    add_live(line),     add_check(line),   add_delete(line),
    add_copy(line),    add_serve(line),    add_trace(line),   add_critical(line)};
  point_up(app);

  auto args = arguments(argc, argv, app);
  std::vector<const char*> given;
  for (auto& a : args)
    given.push_back(a.c_str());
  try {
    app.parse(static_cast<int>(given.size()), given.data());
  } catch (const CLI::Success& e) { // --help, --version
    app.exit(e, out, out);
    return std::nullopt;
  } catch (const CLI::ParseError& e) {
    throw usage_error(describe(e, app));
  }

  for (auto* given : stores)
    if (given->count() > 0 && inv.store.empty())
      throw usage_error("--store needs a directory, not an empty text; " + help_hint(app));
  if (inv.store.empty())
    inv.store = store::default_path();
  if (inv.json && inv.csv)
    throw usage_error("--json and --csv are two ways to print the same rows: give one; "
                      + help_hint(app));
  for (auto& finished : subcommands)
    if (finished(inv))
      break;
  return inv;
}

} // namespace soma::cli
