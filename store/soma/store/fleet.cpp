#include "soma/store/fleet.hpp"

#include <map>

#include <algorithm>
#include <charconv>
#include <set>

#include "soma/store/hosts.hpp"
#include "soma/store/readings.hpp"
#include "soma/store/standing.hpp"

namespace soma {

namespace {

template <class T>
std::optional<T> number(const scalar& x) {
  auto n = x.number();
  if (!n || (std::is_integral_v<T> && !x.is_integer()))
    return std::nullopt;
  return static_cast<T>(*n);
}

} // namespace

namespace {

// The run's hosts joined with the machines' latest readings.
std::vector<fleet_row> joined_fleet(const detail::host_scan& scanned,
                                    const std::map<std::string, reading>& latest,
                                    const fleet_options& options) {
  quietness quiet{latest, options.now_us ? *options.now_us : reader_now_us()};
  auto fill = [&](fleet_row& row, const std::string& id) {
    row.machine = id;
    if (auto i = latest.find(id); i != latest.end()) {
      row.busy = i->second.busy;
      row.served = i->second.served;
      row.quiet_s = quiet.of(i->second);
      row.state = quiet.state_of(i->second);
      row.claims = i->second.claims;
      row.trials = i->second.trials;
    }
  };
  std::vector<fleet_row> rows;
  std::set<std::string> joined;
  for (auto& h : scanned.rows) {
    fleet_row row{h.host, "", h.slices, h.took_us, h.waiting_us};
    if (auto m = scanned.machines.find(h.host); m != scanned.machines.end()) {
      std::string id{m->second["id"].text()};
      joined.insert(id);
      fill(row, id);
      if (!row.busy)
        row.busy = number<double>(m->second["busy"]);
      if (!row.served)
        row.served = number<std::uint64_t>(m->second["served"]);
    }
    rows.push_back(std::move(row));
  }
  if (options.only_the_run)
    return rows;
  for (auto& [id, r] : latest) {
    if (joined.count(id))
      continue;
    fleet_row row{id};
    fill(row, id);
    rows.push_back(std::move(row));
  }
  return rows;
}

} // namespace

std::vector<fleet_row> fleet(const store& s, std::string_view run, const fleet_options& options) {
  // The run first: its damage, or its absence, is what a reader hears of.
  auto scanned = detail::scan_hosts(s, run);
  return joined_fleet(scanned, standing(s), options);
}

std::vector<fleet_row> fleet(const store& s, std::string_view run,
                             const std::map<std::string, reading>& latest,
                             const fleet_options& options) {
  return joined_fleet(detail::scan_hosts(s, run), latest, options);
}

} // namespace soma
