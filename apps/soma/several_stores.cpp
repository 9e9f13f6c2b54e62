#include "several_stores.hpp"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "commands/fleet.hpp"
#include "commands/standing.hpp"
#include "soma/web/opened_store.hpp"
#include "usage_error.hpp"

namespace soma::cli {

int several_stores(const invocation& inv, std::ostream& out, std::ostream& err) {
  if (inv.what != command::standing && inv.what != command::fleet)
    throw usage_error("--store names several stores (A,B,...) only for `soma standing` and `soma "
                      "fleet`, which merge their machines; give every other command one store");
  std::vector<std::unique_ptr<web::opened_store>> opened;
  std::vector<store> stores;
  for (std::size_t at = 0; at <= inv.store.size();) {
    auto comma = std::min(inv.store.find(',', at), inv.store.size());
    auto one = inv.store.substr(at, comma - at);
    if (one.empty())
      throw usage_error("--store " + inv.store + ": an empty store between commas");
    opened.push_back(std::make_unique<web::opened_store>(one, store_options{.read_only = true}));
    stores.push_back(opened.back()->get());
    at = comma + 1;
  }
  auto latest = standing(stores);
  if (inv.what == command::standing) {
    show_standing(latest, inv.store, inv, out, err);
    return exit_ok;
  }
  for (auto& s : stores) {
    try {
      show_fleet(fleet(s, inv.run, latest, {.only_the_run = !inv.all_machines}), inv, out);
      return exit_ok;
    } catch (const store_error& e) {
      if (e.trouble() != store_trouble::missing)
        throw;
      // in another of them
    }
  }
  throw no_run_error("no run '" + inv.run + "' in any of the stores " + inv.store
                     + "; `soma runs --store STORE` lists a store's runs");
}

} // namespace soma::cli
