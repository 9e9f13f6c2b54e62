#include "commands/nodes.hpp"

#include <memory>
#include <ostream>
#include <string>

#include <CLI/CLI.hpp>

#include "count.hpp"
#include "output.hpp"
#include "soma/store/readers.hpp"
#include "table.hpp"

namespace soma::cli {

finish add_nodes(command_line& line) {
  auto* nodes = line.app.add_subcommand("nodes", "each node's time over RUN, added up");
  nodes->add_option("RUN", line.inv.run, "the run")->required();
  auto last_text = std::make_shared<std::string>();
  auto* last = nodes->add_option("--last", *last_text, "only the last N forwards")
                 ->option_text("N");
  common_options(*nodes, line);
  return finish_as(nodes, command::nodes, [last, last_text](invocation& inv) {
    if (last->count() > 0)
      inv.last = parse_count(*last_text, "N of `soma nodes RUN --last N`");
  });
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

} // namespace soma::cli
