#include "commands/standing.hpp"

#include <ostream>

#include <CLI/CLI.hpp>

#include "output.hpp"
#include "soma/store/fleet.hpp"
#include "table.hpp"

namespace soma::cli {

finish add_standing(command_line& line) {
  auto* standing = line.app.add_subcommand(
    "standing", "each machine's latest reading: what every worker writing here is doing");
  common_options(*standing, line);
  return finish_as(standing, command::standing);
}

void show_standing(const std::map<std::string, reading>& latest, const std::string& where,
                   const invocation& inv, std::ostream& out, std::ostream& err) {
  auto now = reader_now_us();
  quietness quiet{latest, now};
  auto quiet_s = [&](const reading& r) { return quiet.of(r); };
  if (for_script(inv))
    return print_rows(out, inv, web::standing_json(latest, now));
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
           {"state"},
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
           utc(r.when_us), duration(quiet_s(r) * 1e6), to_string(quiet.state_of(r)),
           r.listens.empty() ? "-" : r.listens,
           serves});
  }
  t.print(out, true);
  // Said beside the table, not in it: stdout stays the table a script reads.
  if (t.empty())
    err << "soma: no machine has written readings into the store '" << where
        << "'; a worker started with `soma-node --store DIR --reporting SECONDS` writes one on "
           "that clock\n";
}

} // namespace soma::cli
