#include "commands/cache.hpp"

#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "soma/web/opened_store.hpp"
#include "output.hpp"
#include "soma/store/cache.hpp"
#include "table.hpp"

namespace soma::cli {

using web::json;

finish add_cache(command_line& line) {
  auto* cache = line.app.add_subcommand("cache", "the kept outputs of frozen, cached nodes");
  cache->require_subcommand(1);
  auto node_name = std::make_shared<std::string>();
  std::vector<CLI::Option*> given_nodes;
  auto* cache_ls = cache->add_subcommand("ls", "list the kept outputs");
  auto* cache_clear = cache->add_subcommand("clear", "forget the kept outputs");
  for (auto* sub : {cache_ls, cache_clear}) {
    given_nodes.push_back(
      sub->add_option("--node", *node_name, "only this node's")->option_text("NAME"));
    common_options(*sub, line);
  }
  return [cache_ls, cache_clear, given_nodes, node_name](invocation& inv) {
    if (!cache_ls->parsed() && !cache_clear->parsed())
      return false;
    inv.what = cache_ls->parsed() ? command::cache_ls : command::cache_clear;
    for (auto* given : given_nodes)
      if (given->count() > 0)
        inv.node = *node_name;
    return true;
  };
}

void show_cache(const store& s, const invocation& inv, std::ostream& out) {
  auto rows = cache_entries(s, inv.node);
  if (for_script(inv))
    return print_rows(out, inv, rows);
  table t{{{"node"}, {"type"}, {"version"}, {"bytes", align::right}, {"kept_at"}}};
  for (auto& r : rows)
    t.add({r.node, r.type, r.version, std::to_string(r.bytes), utc_seconds(r.kept_at)});
  t.print(out);
}

void clear_cache(const invocation& inv, std::ostream& out, std::ostream& err) {
  // Writes, but only to a store that is there: opening it read-only first
  // says so without creating one where a typo pointed.
  { web::opened_store exists{inv.store, store_options{.read_only = true}}; }
  web::opened_store opened{inv.store, {}};
  auto cleared = cache_clear(opened.get(), inv.node);
  if (inv.csv)
    print_rows(out, inv, json::array({json{{"cleared", cleared}}}));
  else if (inv.json)
    out << json::array({json{{"cleared", cleared}}}).dump() << '\n';
  else
    out << "forgot " << cleared << " kept output" << (cleared == 1 ? "" : "s")
        << (inv.node ? " of node '" + *inv.node + "'" : std::string{}) << '\n';
  if (cleared == 0) {
    if (inv.node)
      err << "soma: the cache holds no output of a node named '" << *inv.node
          << "'; `soma cache ls` lists the nodes it holds outputs of\n";
    else
      err << "soma: the cache was empty already\n";
  }
}

} // namespace soma::cli
