#include "commands/facts.hpp"

#include <memory>
#include <ostream>
#include <string>

#include <CLI/CLI.hpp>

#include "count.hpp"
#include "output.hpp"
#include "soma/store/readers.hpp"

namespace soma::cli {

finish add_facts(command_line& line) {
  auto* facts = line.app.add_subcommand("facts", "every fact forward N of RUN was told, one a line");
  facts->add_option("RUN", line.inv.run, "the run")->required();
  auto forward_text = std::make_shared<std::string>();
  facts->add_option("N", *forward_text, "the forward, from 0")->required();
  common_options(*facts, line);
  return finish_as(facts, command::facts, [forward_text](invocation& inv) {
    inv.forward = parse_count(*forward_text, "N of `soma facts RUN N` (a forward number)");
  });
}

void show_facts(const store& s, const invocation& inv, std::ostream& out) {
  auto told = facts(s, inv.run, inv.forward);
  if (for_script(inv))
    return print_rows(out, inv, told);
  // A fact read back is the very line a watcher printed: one JSON object a
  // line is its human form, as in the seed.
  for (auto& f : told)
    out << to_json(f) << '\n';
}

} // namespace soma::cli
