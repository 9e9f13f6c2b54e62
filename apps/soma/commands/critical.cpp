#include "commands/critical.hpp"

#include <memory>
#include <ostream>
#include <string>

#include <CLI/CLI.hpp>

#include "count.hpp"
#include "soma/store/critical.hpp"
#include "soma/web/json.hpp"
#include "table.hpp"
#include "usage_error.hpp"

namespace soma::cli {

finish add_critical(command_line& line) {
  auto* critical = line.app.add_subcommand(
    "critical", "where RUN's forwards spent their time across machines: each worker's clock "
                "offset, each segment's share per host on the critical paths, the nodes most often "
                "on them, and the slowest remote node had it run here");
  critical->add_option("RUN", line.inv.run, "the run")->required();
  auto last_text = std::make_shared<std::string>();
  auto* last = critical->add_option("--last", *last_text, "only the last N forwards (default 100)")
                 ->option_text("N");
  common_options(*critical, line);
  return finish_as(critical, command::critical, [last, last_text](invocation& inv) {
    if (inv.csv)
      throw usage_error("`soma critical` answers with several tables, which CSV cannot hold; "
                        "use --json");
    if (last->count() > 0) {
      inv.last = parse_count(*last_text, "N of `soma critical RUN --last N`");
      if (*inv.last == 0)
        throw usage_error("N of `soma critical RUN --last N` is how many forwards to read: 1 or more, not 0");
    }
  });
}

namespace {

// "+300.000213s ± 330µs", "-54.0µs ± 40.3ms": an offset and its bound. A
// second or more is given to the microsecond: a clock set minutes off is
// still known that well.
std::string offset_text(const clock_estimate& c) {
  auto size = c.offset_us < 0 ? -static_cast<double>(c.offset_us) : static_cast<double>(c.offset_us);
  return (c.offset_us < 0 ? "-" : "+") + (size >= 1e6 ? decimal(size / 1e6, 6) + "s" : duration(size))
         + " ± " + duration(static_cast<double>(c.bound_us));
}

void show_clocks(const critical_report& r, std::ostream& out) {
  if (r.clocks.empty())
    return;
  out << "\nworkers' clocks (each less this machine's, from its trips):\n";
  table t{{{"host"}, {"offset", align::right}, {"trips", align::right}, {"from forward", align::right},
           {"wire out", align::right}}};
  for (auto& [host, c] : r.clocks)
    t.add({host, offset_text(c), std::to_string(c.trips), std::to_string(c.forward),
           duration(static_cast<double>(c.wire_out_us))});
  t.print(out);
}

void show_shares(const critical_report& r, std::ostream& out) {
  out << "\nwhere the time went (on the critical paths):\n";
  table t{{{"host"}, {"segment"}, {"took", align::right}, {"share", align::right}}};
  for (auto& s : r.shares)
    t.add({s.host, std::string{to_string(s.kind)}, duration(static_cast<double>(s.took_us)),
           decimal(100 * s.of_took) + "%"});
  t.print(out);
}

void show_nodes_on_path(const critical_report& r, std::ostream& out) {
  if (r.nodes.empty())
    return;
  out << "\nnodes most often on the critical path:\n";
  table t{{{"node"}, {"host"}, {"forwards", align::right}, {"took on path", align::right}}};
  for (auto& n : r.nodes)
    t.add({n.node, n.host, std::to_string(n.forwards) + " of " + std::to_string(r.forwards),
           duration(static_cast<double>(n.took_us))});
  t.print(out);
}

void show_what_if(const critical_report& r, std::ostream& out) {
  if (!r.slowest)
    return;
  auto& w = *r.slowest;
  out << "\nthe slowest remote node, " << w.node << " at " << w.host << ", ran there in " << w.remote
      << " forwards (mean " << duration(w.remote_mean_us) << ", its trips "
      << duration(w.trip_mean_us) << ")";
  if (w.here == 0) {
    out << "; it never ran here in these forwards, so there are no local timings to say what it "
           "would cost here\n";
    return;
  }
  out << " and here in " << w.here << " (mean " << duration(w.here_mean_us)
      << ").\nhad it run here: a forward's mean " << duration(w.took_mean_us) << " would have been about "
      << duration(w.estimate_mean_us) << " (an estimate: its trips' time on the path given back, "
      << "its time here added, the rest of the path as it was)\n";
}

} // namespace

void show_critical(const store& s, const invocation& inv, std::ostream& out) {
  auto r = critical(s, inv.run, {.last = inv.last.value_or(100)});
  if (inv.json) {
    out << web::json_of(r).dump(2) << '\n';
    return;
  }
  if (r.forwards == 0) {
    out << "run '" << r.run << "' has no forwards yet\n";
    return;
  }
  out << "run '" << r.run << "': forwards " << r.first << ".." << r.last << " (" << r.forwards
      << "), " << duration(static_cast<double>(r.took_us)) << " in all\n";
  show_clocks(r, out);
  show_shares(r, out);
  show_nodes_on_path(r, out);
  show_what_if(r, out);
}

} // namespace soma::cli
