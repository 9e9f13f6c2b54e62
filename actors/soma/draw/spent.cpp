#include "soma/draw/spent.hpp"

#include <stdexcept>
#include <string>

#include "soma/draw/bars.hpp"
#include "soma/draw/chart.hpp"

namespace soma::draw {

figure spent(const std::vector<node_row>& rows, std::string_view run, const framing& frame) {
  if (rows.empty())
    throw std::invalid_argument("nothing to draw: no node ran, failed or was recalled in run '"
                                + std::string{run} + "'");
  std::vector<bar_row> bars;
  for (auto& r : rows) {
    // One unit per label, the total's: "34.8 ms, ran 40, mean 0.87 ms".
    auto unit = unit_for(static_cast<double>(r.took_us));
    std::string note = duration(static_cast<double>(r.took_us), unit) + ", ran "
                       + std::to_string(r.ran);
    if (r.recalled)
      note += ", recalled " + std::to_string(r.recalled);
    if (r.failed)
      note += ", failed " + std::to_string(r.failed);
    note += ", mean " + duration(r.mean_us, unit);
    bars.push_back({r.node, {static_cast<double>(r.took_us)}, note});
  }
  return time_bars("time spent per node, run " + std::string{run},
                   "each node's took_us over the run, added up (ran and failed; a recalled "
                   "node did not run)",
                   {{"spent", palette::mean}}, bars, "time spent", frame);
}

figure spent(const store& s, std::string_view run, std::optional<std::size_t> last,
             const framing& frame) {
  auto rows = nodes(s, run, last);
  if (rows.empty())
    throw store_error("no node ran in run '" + std::string{run} + "'" +
                      (last ? " in its last " + std::to_string(*last) + " forwards" : "")
                      + "; `soma facts " + std::string{run} + " 0` shows what a forward told",
                      store_trouble::missing);
  return spent(rows, run, frame);
}

} // namespace soma::draw
