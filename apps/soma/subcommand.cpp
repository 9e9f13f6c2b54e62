#include "subcommand.hpp"

#include <CLI/CLI.hpp>

#include "count.hpp"

namespace soma::cli {

finish finish_as(CLI::App* sub, command what, then_read read) {
  return [sub, what, read = std::move(read)](invocation& inv) {
    if (!sub->parsed())
      return false;
    inv.what = what;
    if (read)
      read(inv);
    return true;
  };
}

finish finish_as(CLI::App* sub, command what, std::shared_ptr<const row_window> window,
                 then_read read) {
  return finish_as(sub, what, [sub, window, read = std::move(read)](invocation& inv) {
    window->take(inv, sub->get_name());
    if (read)
      read(inv);
  });
}

void common_options(CLI::App& sub, command_line& line, prints what) {
  auto& inv = line.inv;
  auto* store = sub.add_option("--store", inv.store,
                 "the store's directory (default: $SOMA_STORE, else ./soma-store)")
    ->option_text("DIR");
  auto* json = sub.add_flag("--json", inv.json, "print one JSON array instead of a table");
  auto* csv = sub.add_flag("--csv", inv.csv, "print CSV instead of a table: the --json fields as columns");
  if (what == prints::no_rows) {
    // Taken only to be refused with where the numbers are; not offered.
    json->group("");
    csv->group("");
  }
  line.stores.push_back(store);
}

std::string script_flag(const invocation& inv) { return inv.json ? "--json" : "--csv"; }

std::string help_hint(const CLI::App& app) {
  auto subs = app.get_subcommands();
  if (subs.empty())
    return "`soma --help` lists the commands";
  return "`soma " + subs.front()->get_name() + " --help` says how it goes";
}

row_window::row_window(CLI::App& sub, const std::string& rows) {
  first_ = sub.add_option("--first", first_text_, "only the first N " + rows)->option_text("N");
  last_ = sub.add_option("--last", last_text_, "only the last N " + rows)->option_text("N");
  first_->excludes(last_);
}

void row_window::take(invocation& inv, const std::string& name) const {
  if (first_->count() > 0)
    inv.first = parse_count(first_text_, "N of `soma " + name + " --first N`");
  if (last_->count() > 0)
    inv.last = parse_count(last_text_, "N of `soma " + name + " --last N`");
}

} // namespace soma::cli
