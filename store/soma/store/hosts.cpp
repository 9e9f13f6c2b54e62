#include "soma/store/hosts.hpp"

#include <algorithm>
#include <charconv>
#include <functional>
#include <memory>

#include "soma/store/answers.hpp"
#include "soma/store/backend.hpp"
#include "soma/store/readers.hpp"
#include "soma/store/keys.hpp"
#include "soma/store/detail/record.hpp"

namespace soma {

namespace {

std::int64_t micros(const scalar& x) {
  return x.integer_or(0);
}

host_row& row_of(std::vector<host_row>& rows, std::string_view host) {
  auto it = std::find_if(rows.begin(), rows.end(), [&](const host_row& r) { return r.host == host; });
  if (it != rows.end())
    return *it;
  return rows.emplace_back(host_row{std::string{host}});
}

} // namespace

std::vector<host_row> hosts(const store& s, std::string_view run) {
  return detail::scan_hosts(s, run).rows;
}

void detail::host_tally::add(const std::vector<fact>& told) {
  for (auto& f : told) {
    if (f.name == "machine" && !f["host"].text().empty()) {
      machines_.insert_or_assign(std::string{f["host"].text()}, f);
      continue;
    }
    bool left = f.name == "left";
    if (!left && f.name != "ran" && f.name != "failed")
      continue;
    auto host = f["host"].text();
    auto& row = row_of(rows_, host.empty() ? std::string_view{"here"} : host);
    trips_.resize(rows_.size());
    auto i = static_cast<std::size_t>(&row - rows_.data());
    if (left) {
      row.slices += 1;
      trips_[i] += micros(f["took_us"]);
    } else {
      row.took_us += micros(f["took_us"]);
    }
  }
}

std::vector<host_row> detail::host_tally::rows() const {
  auto rows = rows_;
  for (std::size_t i = 0; i < rows.size(); ++i)
    if (rows[i].host != "here")
      rows[i].waiting_us = std::max<std::int64_t>(0, trips_[i] - rows[i].took_us);
  // "here" first: the run's own process is the reference the others are read against.
  std::stable_partition(rows.begin(), rows.end(), [](const host_row& r) { return r.host == "here"; });
  return rows;
}

void detail::host_tally::merge(const std::vector<host_row>& rows,
                               const std::vector<std::int64_t>& trips,
                               const std::map<std::string, fact>& machines) {
  for (std::size_t i = 0; i < rows.size(); ++i) {
    auto& row = row_of(rows_, rows[i].host);
    trips_.resize(rows_.size());
    row.slices += rows[i].slices;
    row.took_us += rows[i].took_us;
    trips_[static_cast<std::size_t>(&row - rows_.data())] += i < trips.size() ? trips[i] : 0;
  }
  for (auto& [host, f] : machines)
    machines_.insert_or_assign(host, f);
}

detail::host_scan detail::scan_hosts(const store& s, std::string_view run) {
  auto& ask = s.backend().ask();
  detail::host_tally tally;
  auto part = ask.hosts(run, 0, blobs_per_part);
  auto total = part.total;
  for (;;) {
    tally.merge(part.rows, part.trips, part.machines);
    if (part.next >= total || part.next >= part.total)
      break;
    part = ask.hosts(run, part.next, std::min<std::uint64_t>(blobs_per_part, total - part.next));
  }
  return {tally.rows(), tally.machines()};
}

} // namespace soma
