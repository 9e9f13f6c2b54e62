#include "commands/check.hpp"

#include <unistd.h>

#include <chrono>
#include <ostream>
#include <string>

#include <CLI/CLI.hpp>

#include "output.hpp"
#include "soma/store/check.hpp"
#include "table.hpp"
#include "usage_error.hpp"

namespace soma::cli {

using web::json;

finish add_check(command_line& line) {
  auto* check = line.app.add_subcommand(
    "check", "walk the whole store and list every damaged entry; exit 2 if any, 0 if none");
  common_options(*check, line);
  check->add_flag("--progress", line.inv.progress,
                  "say how far the walk is on stderr, once a second (on a terminal it does anyway)");
  return finish_as(check, command::check);
}

int show_check(const store& s, const invocation& inv, std::ostream& out, std::ostream& err) {
  auto began = std::chrono::steady_clock::now();
  auto said = began - std::chrono::seconds(1); // the first step is said at once
  check_progress progress;
  if (inv.progress || ::isatty(2))
    progress = [&](std::size_t entries, std::size_t total) {
      auto now = std::chrono::steady_clock::now();
      if (now - said >= std::chrono::seconds(1)) {
        said = now;
        err << "soma: checking the store '" << s.path() << "': " << entries << " of " << total
            << " entries" << std::endl;
      }
      return true;
    };
  auto report = soma::check(s, progress);
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

} // namespace soma::cli
