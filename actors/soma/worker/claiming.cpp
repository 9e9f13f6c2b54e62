#include "soma/worker/claiming.hpp"

#include <stdexcept>

namespace soma::serve {

const detail::trial_function_entry&
trial_function_for(const std::vector<std::shared_ptr<const detail::node_library>>& libraries,
                   const study_row& study, const std::string& wanted) {
  std::vector<const detail::trial_function_entry*> all;
  std::string names;
  for (auto& lib : libraries)
    if (lib->trials)
      for (auto& e : *lib->trials) {
        all.push_back(&e);
        names += (names.empty() ? "'" : ", '") + e.name + "'";
      }
  auto name = wanted.empty() ? study.function : wanted;
  if (!name.empty()) {
    for (auto* e : all)
      if (e->name == name)
        return *e;
    throw std::invalid_argument(
      "no --nodes library gives a trial function named '" + name + "'"
      + (wanted.empty() ? " (the study '" + study.name + "' names it)" : std::string{})
      + (all.empty() ? std::string{"; none gives any: a library declares its own with "
                                   "SOMA_TRIAL_FUNCTIONS({\"name\", &function}) (docs/trials.md)"}
                     : "; they give " + names));
  }
  if (all.size() == 1)
    return *all.front();
  if (all.empty())
    throw std::invalid_argument("no --nodes library gives a trial function to run the trials of '"
                                + study.name + "' with; a library declares its own with "
                                  "SOMA_TRIAL_FUNCTIONS({\"name\", &function}) (docs/trials.md)");
  throw std::invalid_argument("the --nodes libraries give " + std::to_string(all.size())
                              + " trial functions (" + names + ") and the study '" + study.name
                              + "' names none: say which with --trial NAME");
}

} // namespace soma::serve
