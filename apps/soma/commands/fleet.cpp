#include "commands/fleet.hpp"

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>

#include <CLI/CLI.hpp>

#include "output.hpp"
#include "table.hpp"

namespace soma::cli {

namespace {

// A value a row may not have: "-" when it has none.
template <class T, class Show>
std::string or_dash(const std::optional<T>& x, Show show) {
  return x ? show(*x) : "-";
}

} // namespace

finish add_fleet(command_line& line) {
  auto* fleet = line.app.add_subcommand(
    "fleet", "one row per machine of RUN: work done there, time waiting on the wire, "
             "its latest reading");
  fleet->add_option("RUN", line.inv.run, "the run")->required();
  fleet->add_flag("--all-machines", line.inv.all_machines,
                  "also every machine of the store that did not touch the run");
  common_options(*fleet, line);
  return finish_as(fleet, command::fleet);
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
           {"quiet", align::right},
           {"state"}}};
  for (auto& r : rows)
    t.add({r.host, r.machine.empty() ? "-" : r.machine, std::to_string(r.slices),
           duration(static_cast<double>(r.took_us)), duration(static_cast<double>(r.waiting_us)),
           or_dash(r.busy, [](double x) { return decimal(x, 2); }),
           or_dash(r.served, [](std::uint64_t x) { return std::to_string(x); }),
           r.claims.empty() ? "-" : r.claims,
           r.claims.empty() ? "-" : or_dash(r.trials, [](std::uint64_t x) { return std::to_string(x); }),
           or_dash(r.quiet_s, [](double x) { return duration(x * 1e6); }),
           r.state ? to_string(*r.state) : "-"});
  t.print(out);
}

} // namespace soma::cli
