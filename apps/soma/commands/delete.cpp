#include "commands/delete.hpp"

#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

#include <unistd.h>

#include <CLI/CLI.hpp>

#include "soma/web/opened_store.hpp"
#include "soma/store/deleting.hpp"
#include "soma/store/keys.hpp"
#include "soma/store/readers.hpp"
#include "usage_error.hpp"

namespace soma::cli {

finish add_delete(command_line& line) {
  auto& inv = line.inv;
  auto* remove = line.app.add_subcommand(
    "delete", "delete runs from the store for good: their records, facts and metadata");
  remove->add_option("RUN", inv.runs, "the runs")->required();
  remove->add_flag("--yes", inv.yes, "do not ask first");
  remove->add_flag("--force", inv.force, "delete a run whose writer still records it");
  common_options(*remove, line, prints::no_rows);
  return finish_as(remove, command::remove, [](invocation& inv) {
    if (inv.json || inv.csv)
      throw usage_error("`soma delete` deletes and says what it did on stderr; "
                        + script_flag(inv) + " has nothing to print there");
  });
}

void delete_runs(const invocation& inv, std::ostream& err) {
  {
    web::opened_store exists{inv.store, store_options{.read_only = true}};
    // Refused before anything is asked: a served store deletes nothing
    // through its clients.
    if (!exists.get().on_this_host())
      throw usage_error("cannot delete runs through the served store " + exists.get().path()
                        + ": its server writes and reads for clients but deletes nothing; run "
                          "`soma delete` on the host that serves it, with --store DIR (the "
                          "directory its soma-node --serve-store names)");
  }
  web::opened_store opened{inv.store, {}};
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

} // namespace soma::cli
