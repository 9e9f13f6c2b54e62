#include "cli.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <functional>
#include <ostream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include "count.hpp"
#include "health.hpp"
#include "plot.hpp"
#include "soma/store/run_query.hpp"
#include "soma/store/store.hpp"
#include "soma/version.hpp"
#include "usage_error.hpp"

namespace soma::cli {

namespace {

constexpr const char* synopsis = "soma runs | forwards RUN | curve RUN NAME | facts RUN N | "
                                 "nodes RUN [--last N] | compare RUN_A RUN_B | cache ls|clear [--node NAME] | "
                                 "standing | fleet RUN | trials [STUDY] | "
                                 "reclaim STUDY --quiet-over S | "
                                 "health [RUN] [--rules FILE] [--at TIME] [--fail-on firing] | "
                                 "plot progress|spent|machines RUN -o FILE | plot study STUDY -o FILE | "
                                 "plot graph -o FILE PROGRAM | live --run RUN | check | copy FROM DIR | "
                                 "serve [--listen HOST:PORT] | trace RUN [--forward N | --last N] -o FILE | "
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

The store is only ever opened read-only, reading never creates or changes it;
`soma cache clear` and `soma reclaim` alone write, and only to a store that exists.
Exit status: 0 when it answered (`soma health` too, whatever it finds); 2 for
bad usage, a missing store, an unknown run or forward, or a damaged record
(and for `soma check`, any damage found); 3 for `soma health --fail-on
firing` when an opinion fires.)";

// The options every subcommand takes, bound to the same invocation.
CLI::Option* common_options(CLI::App& sub, invocation& inv) {
  auto* store = sub.add_option("--store", inv.store,
                 "the store's directory (default: $SOMA_STORE, else ./soma-store)")
    ->option_text("DIR");
  sub.add_flag("--json", inv.json, "print one JSON array instead of a table");
  sub.add_flag("--csv", inv.csv, "print CSV instead of a table: the --json fields as columns");
  return store;
}

// The flag that asked for rows for a script: "--json" or "--csv".
std::string script_flag(const invocation& inv) { return inv.json ? "--json" : "--csv"; }

// --first N and --last N, for a table that can be long: its options.
struct row_window {
  CLI::Option* first;
  CLI::Option* last;
};

row_window window_options(CLI::App& sub, std::string& first_text, std::string& last_text,
                          const std::string& rows) {
  auto* first = sub.add_option("--first", first_text, "only the first N " + rows)->option_text("N");
  auto* last = sub.add_option("--last", last_text, "only the last N " + rows)->option_text("N");
  first->excludes(last);
  return {first, last};
}

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
  runs.add_option("--sort", inv.sort,
                  "order by: first (when it began; the default), last, run, status, forwards, "
                  "broke, took, or a parameter's NAME")
    ->option_text("KEY");
  runs.add_flag("--reverse", inv.reverse, "in the other order");
}

// Where to read how the command line goes, for an error message.
std::string help_hint(const CLI::App& app) {
  auto subs = app.get_subcommands();
  if (subs.empty())
    return "`soma --help` lists the commands";
  return "`soma " + subs.front()->get_name() + " --help` says how it goes";
}

// CLI11's message, made to name the thing the way this command does.
// The edit distance between `a` and `b` (insertions, deletions, changes).
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

// "did you mean 'forwards'? " for a command a typo away from `typed`, else "".
std::string did_you_mean(const std::string& typed, const CLI::App& app) {
  std::string best;
  std::size_t best_distance = 3; // two edits at most
  for (auto* sub : app.get_subcommands([](const CLI::App*) { return true; }))
    if (auto d = distance(typed, sub->get_name()); d < best_distance && d < typed.size()) {
      best = sub->get_name();
      best_distance = d;
    }
  return best.empty() ? "" : "did you mean '" + best + "'? ";
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

// -o FILE must say its format by its extension.
void check_output(const std::string& file, const CLI::App& app) {
  auto dot = file.find_last_of('.');
  std::string ext = dot == std::string::npos ? "" : file.substr(dot);
  for (auto& c : ext)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (ext != ".svg" && ext != ".png")
    throw usage_error("-o " + file + ": the file must end in .svg or .png, which says the format; "
                      + help_hint(app));
}

} // namespace

std::optional<invocation> parse(int argc, const char* const* argv, std::ostream& out) {
  invocation inv;
  std::string forward_text;
  std::string last_text;

  CLI::App app{"soma: read back what recorders wrote to a store, at a price it names.", "soma"};
  app.footer(price_list);
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string{"soma "} + soma::version);
  // Before the subcommand too (`soma --json runs`), as users of git expect.
  std::vector<CLI::Option*> given_stores{common_options(app, inv)};

  auto* runs = app.add_subcommand("runs", "every run in the store, summed up, in the order they began");
  runs_options(*runs, inv);
  std::string first_text;
  auto runs_window = window_options(*runs, first_text, last_text, "runs");
  given_stores.push_back(common_options(*runs, inv));

  auto* forwards = app.add_subcommand("forwards", "every forward of RUN, step by step");
  forwards->add_option("RUN", inv.run, "the run")->required();
  auto forwards_window = window_options(*forwards, first_text, last_text, "forwards");
  given_stores.push_back(common_options(*forwards, inv));

  auto* curve = app.add_subcommand("curve", "the series of NAME over RUN");
  curve->add_option("RUN", inv.run, "the run")->required();
  curve->add_option("NAME", inv.name, "a fact (its \"value\") or fact.field, e.g. loss")
    ->required();
  auto curve_window = window_options(*curve, first_text, last_text, "points");
  given_stores.push_back(common_options(*curve, inv));

  auto* facts = app.add_subcommand("facts", "every fact forward N of RUN was told, one a line");
  facts->add_option("RUN", inv.run, "the run")->required();
  facts->add_option("N", forward_text, "the forward, from 0")->required();
  given_stores.push_back(common_options(*facts, inv));

  auto* nodes = app.add_subcommand("nodes", "each node's time over RUN, added up");
  nodes->add_option("RUN", inv.run, "the run")->required();
  auto* last = nodes->add_option("--last", last_text, "only the last N forwards")
                 ->option_text("N");
  given_stores.push_back(common_options(*nodes, inv));

  auto* compare = app.add_subcommand(
    "compare", "two runs side by side, node by node: each node's mean and total time, ran, "
               "recalled and failed in RUN_A and RUN_B, and the difference B - A");
  compare->add_option("RUN_A", inv.run, "the run")->required();
  compare->add_option("RUN_B", inv.other, "the run to compare it with")->required();
  given_stores.push_back(common_options(*compare, inv));

  auto* cache = app.add_subcommand("cache", "the kept outputs of frozen, cached nodes");
  cache->require_subcommand(1);
  std::string node_name;
  std::vector<CLI::Option*> given_nodes;
  auto* cache_ls = cache->add_subcommand("ls", "list the kept outputs");
  auto* cache_clear = cache->add_subcommand("clear", "forget the kept outputs");
  for (auto* sub : {cache_ls, cache_clear}) {
    given_nodes.push_back(
      sub->add_option("--node", node_name, "only this node's")->option_text("NAME"));
    given_stores.push_back(common_options(*sub, inv));
  }

  auto* standing = app.add_subcommand(
    "standing", "each machine's latest reading: what every worker writing here is doing");
  given_stores.push_back(common_options(*standing, inv));

  auto* fleet = app.add_subcommand(
    "fleet", "one row per machine of RUN: work done there, time waiting on the wire, "
             "its latest reading");
  fleet->add_option("RUN", inv.run, "the run")->required();
  fleet->add_flag("--all-machines", inv.all_machines,
                  "also every machine of the store that did not touch the run");
  given_stores.push_back(common_options(*fleet, inv));

  auto* trials = app.add_subcommand(
    "trials", "the studies in the store; with STUDY, each of its trials: parameters, state, "
              "claimant and its quiet_s, run, result");
  trials->add_option("STUDY", inv.study, "the study");
  given_stores.push_back(common_options(*trials, inv));

  auto* reclaim = app.add_subcommand(
    "reclaim", "hand back the trials of STUDY whose claimants' readings are more than S seconds "
               "behind the newest writer's (writes; the attempts stay in the record)");
  reclaim->add_option("STUDY", inv.study, "the study")->required();
  std::string quiet_text;
  reclaim->add_option("--quiet-over", quiet_text, "the rule's S: seconds a claimant may be quiet")
    ->option_text("S")
    ->required();
  given_stores.push_back(common_options(*reclaim, inv));

  auto* health = app.add_subcommand(
    "health", "opinions of the store at stated thresholds (rules with a `for`: pending, then "
              "firing), computed on read and never written; exits 0 whatever it finds");
  health->add_option("RUN", inv.run, "only opinions about this run");
  auto* rules = health->add_option("--rules", inv.rules,
                                   "a rules file overriding thresholds (docs/health.md)")
                  ->option_text("FILE");
  std::string at_text, fail_on_text;
  auto* at = health->add_option("--at", at_text,
                                "judge as of then: unix seconds, a UTC time such as "
                                "2026-12-01T21:30:00Z, or -30s, -10m, -2h, -1d before now")
               ->option_text("TIME");
  health->add_option("--fail-on", fail_on_text, "exit 3 when an opinion is firing (for scripts)")
    ->option_text("firing");
  health->add_flag("--list", inv.list_rules, "list the rules, their settings and conditions");
  given_stores.push_back(common_options(*health, inv));

  auto* plot = app.add_subcommand("plot", "draw a figure of RUN, or a graph's declaration, to a file");
  plot->require_subcommand(1);
  std::string window_text, interval_text;
  auto* plot_progress = plot->add_subcommand(
    "progress", "NAME over RUN, raw and thin, with a bold centred rolling mean; several runs "
                "or facts overlaid with a legend");
  plot_progress->add_option("RUN", inv.runs, "the run, or several to overlay")->required();
  plot_progress
    ->add_option("--fact", inv.facts,
                 "the series: a fact (its \"value\") or fact.field; again for another series")
    ->option_text("NAME")
    ->allow_extra_args(false);
  plot_progress->add_flag("--log-y", inv.log_y,
                          "a log y axis (powers of ten); values of 0 or less are left out, "
                          "and the figure says how many");
  auto* window = plot_progress->add_option("--window", window_text,
                                           "the rolling mean's window, an odd number of values")
                   ->option_text("N");
  auto* plot_spent = plot->add_subcommand("spent", "time per node over RUN, added up");
  auto* plot_last = plot_spent->add_option("--last", last_text, "only the last N forwards")
                      ->option_text("N");
  auto* plot_machines =
    plot->add_subcommand("machines", "per host, time working there against time waiting");
  for (auto* sub : {plot_spent, plot_machines})
    sub->add_option("RUN", inv.run, "the run")->required();
  auto* plot_study = plot->add_subcommand(
    "study", "the result of each trial of STUDY, and every trial's curve overlaid");
  plot_study->add_option("STUDY", inv.study, "the study")->required();
  plot_study->add_option("--fact", inv.fact, "the curve: a fact (its \"value\") or fact.field")
    ->option_text("NAME");
  plot_study->add_option("--result", inv.result,
                         "the result to draw per trial (default: its first number)")
    ->option_text("NAME");
  auto* plot_graph = plot->add_subcommand(
    "graph", "run PROGRAM with $SOMA_DRAW_GRAPH set; it draws its graph's declaration");
  plot_graph->add_option("PROGRAM", inv.program,
                         "a program that calls soma::draw::draw_if_asked(g.declaration()), "
                         "and its arguments (after -- when they start with -)")
    ->required();
  std::string size_text;
  std::vector<CLI::Option*> sizes;
  for (auto* sub : {plot_progress, plot_spent, plot_machines, plot_study, plot_graph}) {
    sub->add_option("-o,--output", inv.output, "the file: .svg or .png")
      ->option_text("FILE")
      ->required();
    if (sub != plot_graph) {
      sizes.push_back(sub->add_option("--size", size_text, "the figure's size in pixels, such as 1280x720")
                        ->option_text("WxH"));
      sub->add_option("--title", inv.title, "the figure's title instead of its own")
        ->option_text("TEXT");
    }
    given_stores.push_back(common_options(*sub, inv));
  }

  auto* live = app.add_subcommand(
    "live", "a view of RUN in the terminal, redrawn as another process records; q quits");
  live->add_option("RUN,--run", inv.run, "the run")->required();
  live->add_option("--fact", inv.fact, "the series to show (default loss)")->option_text("NAME");
  auto* interval = live->add_option("--interval", interval_text,
                                    "how often to read the store, in ms (default 200)")
                     ->option_text("MS");
  live->add_flag("--once", inv.once, "print one frame and exit");
  std::string quiet_after_text;
  auto* quiet_after = live->add_option("--quiet-after", quiet_after_text,
                                       "say so once no forward came for S seconds, or 3 times the "
                                       "recent mean gap when longer (default 5)")
                        ->option_text("S");
  given_stores.push_back(common_options(*live, inv));

  auto* check = app.add_subcommand(
    "check", "walk the whole store and list every damaged entry; exit 2 if any, 0 if none");
  given_stores.push_back(common_options(*check, inv));

  auto* remove = app.add_subcommand(
    "delete", "delete runs from the store for good: their records, facts and metadata");
  remove->add_option("RUN", inv.runs, "the runs")->required();
  remove->add_flag("--yes", inv.yes, "do not ask first");
  remove->add_flag("--force", inv.force, "delete a run whose writer still records it");
  given_stores.push_back(common_options(*remove, inv));

  auto* copy = app.add_subcommand(
    "copy", "a compacted copy of the whole store FROM (a directory or soma://HOST:PORT) in the new "
            "directory DIR: a backup, or a served store brought here whole");
  copy->add_option("FROM", inv.from, "the store to copy: DIR or soma://HOST:PORT")->required();
  copy->add_option("DIR", inv.into, "where the copy goes: a new or empty directory")->required();

  auto* serve = app.add_subcommand(
    "serve", "a web page of the store's runs, the fleet, trials and opinions, live; its JSON "
             "API, traces and Prometheus metrics (docs/web.md); prints its URL first");
  serve->add_option("--listen", inv.listen,
                    "HOST:PORT (default 127.0.0.1:8080); port 0 takes a free one; beyond "
                    "loopback only with --tls-cert and --tls-key")
    ->option_text("HOST:PORT");
  serve->add_option("--tls-cert", inv.tls_cert,
                    "the server's certificate (PEM), for HTTPS; a browser matches its "
                    "subjectAltName (soma-certs issue DIR NAME --host HOST)")
    ->option_text("FILE");
  serve->add_option("--tls-key", inv.tls_key, "its private key (PEM)")->option_text("FILE");
  std::string live_cap_text;
  auto* live_cap = serve->add_option("--live-cap", live_cap_text,
                                     "live pages streamed to at once (default 16, at most 64); "
                                     "past it a page is refused with 503")
                     ->option_text("N");
  given_stores.push_back(common_options(*serve, inv));

  auto* trace = app.add_subcommand(
    "trace", "RUN's forwards as a Chrome trace (trace-event JSON) that Perfetto and "
             "chrome://tracing open: nodes as spans per host, trips as arrows, recalls as instants");
  trace->add_option("RUN", inv.run, "the run")->required();
  auto* trace_forward = trace->add_option("--forward", forward_text, "only forward N")->option_text("N");
  auto* trace_last = trace->add_option("--last", last_text, "only the last N forwards (default 100)")
                       ->option_text("N");
  trace_forward->excludes(trace_last);
  std::string max_bytes_text;
  auto* max_bytes = trace->add_option("--max-bytes", max_bytes_text,
                                      "cut the file before it grows past N bytes (default 50 MiB)")
                      ->option_text("N");
  trace->add_option("-o,--output", inv.output, "the file to write (.json)")
    ->option_text("FILE")
    ->required();
  given_stores.push_back(common_options(*trace, inv));

  // The price list and the exit statuses are said once, by `soma --help`;
  // each subcommand's help points there instead of repeating them.
  std::function<void(CLI::App&)> point_up = [&](CLI::App& parent) {
    for (auto* sub : parent.get_subcommands([](const CLI::App*) { return true; })) {
      sub->footer("What each command costs, and the exit statuses: `soma --help`.");
      point_up(*sub);
    }
  };
  point_up(app);

  // `soma help` and `soma help CMD` are `soma --help` and `soma CMD --help`.
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

  for (auto* given : given_stores)
    if (given->count() > 0 && inv.store.empty())
      throw usage_error("--store needs a directory, not an empty text; " + help_hint(app));
  if (inv.store.empty())
    inv.store = store::default_path();
  if (inv.json && inv.csv)
    throw usage_error("--json and --csv are two ways to print the same rows: give one; "
                      + help_hint(app));
  for (auto [sub, w] : {std::pair{runs, runs_window}, std::pair{forwards, forwards_window},
                         std::pair{curve, curve_window}}) {
    if (!sub->parsed())
      continue;
    auto name = sub->get_name();
    if (w.first->count() > 0)
      inv.first = parse_count(first_text, "N of `soma " + name + " --first N`");
    if (w.last->count() > 0)
      inv.last = parse_count(last_text, "N of `soma " + name + " --last N`");
  }
  if (runs->parsed()) {
    inv.what = command::runs;
    if (auto ok = check_query({inv.prefix, inv.statuses, inv.tags, inv.params}); !ok)
      throw usage_error("--" + soma::describe(ok.error()) + "; " + help_hint(app));
  } else if (forwards->parsed()) {
    inv.what = command::forwards;
  } else if (curve->parsed()) {
    inv.what = command::curve;
  } else if (standing->parsed()) {
    inv.what = command::standing;
  } else if (fleet->parsed()) {
    inv.what = command::fleet;
  } else if (cache_ls->parsed() || cache_clear->parsed()) {
    inv.what = cache_ls->parsed() ? command::cache_ls : command::cache_clear;
    for (auto* given : given_nodes)
      if (given->count() > 0)
        inv.node = node_name;
  } else if (trials->parsed()) {
    inv.what = command::trials;
  } else if (health->parsed()) {
    inv.what = command::health;
    inv.rules_given = rules->count() > 0;
    if (at->count() > 0)
      inv.at_us = parse_moment(at_text);
    if (!fail_on_text.empty() && fail_on_text != "firing")
      throw usage_error("`soma health --fail-on` takes firing (exit 3 when an opinion fires), not '"
                        + fail_on_text + "'; " + help_hint(app));
    inv.fail_on_firing = !fail_on_text.empty();
  } else if (reclaim->parsed()) {
    inv.what = command::reclaim;
    std::size_t used = 0;
    try {
      inv.quiet_over = std::stod(quiet_text, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != quiet_text.size() || !(inv.quiet_over >= 0)
        || !std::isfinite(inv.quiet_over))
      throw usage_error("S of `soma reclaim STUDY --quiet-over S` is seconds, 0 or more, not '"
                        + quiet_text + "'; " + help_hint(app));
  } else if (plot_progress->parsed() || plot_spent->parsed() || plot_machines->parsed()
             || plot_study->parsed() || plot_graph->parsed()) {
    inv.what = plot_progress->parsed() ? command::plot_progress
               : plot_spent->parsed()  ? command::plot_spent
               : plot_machines->parsed() ? command::plot_machines
               : plot_study->parsed()  ? command::plot_study
                                         : command::plot_graph;
    check_output(inv.output, app);
    if (inv.json || inv.csv)
      throw usage_error("`soma plot` draws a figure into -o FILE, and " + script_flag(inv)
                        + " has nothing to print there; the numbers behind it are `soma --json curve RUN NAME`, "
                        "`soma --json nodes RUN`, `soma --json fleet RUN` and `soma --json trials STUDY`");
    if (window->count() > 0)
      inv.window = parse_count(window_text, "N of `soma plot progress --window N`");
    if (std::any_of(sizes.begin(), sizes.end(), [](auto* o) { return o->count() > 0; }))
      std::tie(inv.width, inv.height) = parse_size(size_text);
    if (plot_progress->parsed()) {
      if (inv.facts.empty())
        inv.facts.push_back(inv.fact);
      if (inv.runs.size() * inv.facts.size() > most_overlaid)
        throw usage_error("`soma plot progress` overlays at most " + std::to_string(most_overlaid)
                          + " series (runs times facts) on one figure, not "
                          + std::to_string(inv.runs.size() * inv.facts.size())
                          + "; draw them in several figures");
      inv.run = inv.runs.front();
      inv.fact = inv.facts.front();
    }
    if (plot_last->count() > 0)
      inv.last = parse_count(last_text, "N of `soma plot spent --last N`");
  } else if (check->parsed()) {
    inv.what = command::check;
  } else if (remove->parsed()) {
    inv.what = command::remove;
    if (inv.json || inv.csv)
      throw usage_error("`soma delete` deletes and says what it did on stderr; "
                        + script_flag(inv) + " has nothing to print there");
  } else if (copy->parsed()) {
    inv.what = command::copy;
  } else if (serve->parsed()) {
    inv.what = command::serve;
    if (inv.json || inv.csv)
      throw usage_error("`soma serve` answers JSON at /api/ (docs/web.md); " + script_flag(inv)
                        + " has nothing to print here");
    if (live_cap->count() > 0) {
      inv.live_cap = parse_count(live_cap_text, "N of `soma serve --live-cap N`");
      if (inv.live_cap < 1 || inv.live_cap > 64)
        throw usage_error("--live-cap " + live_cap_text + ": from 1 to 64 live pages (each holds a "
                          "thread of the server while it is open)");
    }
  } else if (trace->parsed()) {
    inv.what = command::trace;
    if (inv.json || inv.csv)
      throw usage_error("`soma trace` writes JSON to -o FILE already; drop " + script_flag(inv));
    if (trace_forward->count() > 0)
      inv.forward_given = true, inv.forward = parse_count(forward_text, "N of `soma trace RUN --forward N`");
    if (trace_last->count() > 0)
      inv.last = parse_count(last_text, "N of `soma trace RUN --last N`");
    if (max_bytes->count() > 0)
      inv.max_bytes = parse_count(max_bytes_text, "N of `soma trace RUN --max-bytes N`");
  } else if (live->parsed()) {
    inv.what = command::live;
    if (inv.json || inv.csv)
      throw usage_error("`soma live` draws for a person, and " + script_flag(inv)
                        + " has nothing to print there; "
                        "for a script, read `soma --json forwards RUN` or `soma --json curve RUN "
                        "NAME` as often as it needs");
    if (interval->count() > 0)
      inv.interval_ms = parse_count(interval_text, "MS of `soma live --interval MS`");
    if (quiet_after->count() > 0)
      inv.quiet_after_s = parse_count(quiet_after_text,
                                      "S of `soma live --quiet-after S` (whole seconds)");
  } else if (compare->parsed()) {
    inv.what = command::compare;
  } else if (facts->parsed()) {
    inv.what = command::facts;
    inv.forward = parse_count(forward_text, "N of `soma facts RUN N` (a forward number)");
  } else {
    inv.what = command::nodes;
    if (last->count() > 0)
      inv.last = parse_count(last_text, "N of `soma nodes RUN --last N`");
  }
  return inv;
}

} // namespace soma::cli
