#include "soma/draw/machines.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "soma/draw/bars.hpp"
#include "soma/draw/chart.hpp"

namespace soma::draw {

figure machines(const std::vector<host_row>& rows, std::string_view run, const framing& frame) {
  if (rows.empty())
    throw std::invalid_argument("nothing to draw: nothing ran in run '" + std::string{run} + "'");
  std::vector<bar_row> bars;
  for (auto& r : rows) {
    auto work = static_cast<double>(r.took_us), wait = static_cast<double>(r.waiting_us);
    // One unit per label, the larger's: "working 800 ms, waiting 2.3 ms".
    auto unit = unit_for(std::max(work, wait));
    std::string note = "working " + duration(work, unit);
    if (r.host != "here")
      note += ", waiting " + duration(wait, unit) + ", " + std::to_string(r.slices)
              + (r.slices == 1 ? " slice" : " slices");
    bars.push_back({r.host, {work, wait}, note});
  }
  return time_bars("working vs waiting per machine, run " + std::string{run},
                   "waiting: each trip's round trip (left) minus the work done over there: "
                   "the wire, the queue and the codec",
                   {{"working", palette::work}, {"waiting", palette::wait}}, bars, "time", frame);
}

figure machines(const store& s, std::string_view run, const framing& frame) {
  auto rows = hosts(s, run);
  if (rows.empty())
    throw store_error("nothing ran in run '" + std::string{run}
                      + "': no ran, failed or left fact; `soma facts " + std::string{run}
                      + " 0` shows what a forward told", store_trouble::missing);
  return machines(rows, run, frame);
}

} // namespace soma::draw
