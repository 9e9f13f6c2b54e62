#include "commands/reclaim.hpp"

#include <cmath>
#include <memory>
#include <ostream>
#include <string>

#include <CLI/CLI.hpp>

#include "soma/web/opened_store.hpp"
#include "output.hpp"
#include "soma/store/trials.hpp"
#include "table.hpp"
#include "usage_error.hpp"

namespace soma::cli {

using web::json;

finish add_reclaim(command_line& line) {
  auto* reclaim = line.app.add_subcommand(
    "reclaim", "hand back the trials of STUDY whose claimants' readings are more than S seconds "
               "behind the newest writer's (writes; the attempts stay in the record)");
  reclaim->add_option("STUDY", line.inv.study, "the study")->required();
  auto quiet_text = std::make_shared<std::string>();
  reclaim->add_option("--quiet-over", *quiet_text, "the rule's S: seconds a claimant may be quiet")
    ->option_text("S")
    ->required();
  common_options(*reclaim, line);
  return finish_as(reclaim, command::reclaim, [quiet_text, &app = line.app](invocation& inv) {
    std::size_t used = 0;
    try {
      inv.quiet_over = std::stod(*quiet_text, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != quiet_text->size() || !(inv.quiet_over >= 0)
        || !std::isfinite(inv.quiet_over))
      throw usage_error("S of `soma reclaim STUDY --quiet-over S` is seconds, 0 or more, not '"
                        + *quiet_text + "'; " + help_hint(app));
  });
}

void reclaim_trials(const invocation& inv, std::ostream& out, std::ostream& err) {
  { web::opened_store exists{inv.store, store_options{.read_only = true}}; }
  web::opened_store opened{inv.store, {}};
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

} // namespace soma::cli
