#include "soma/store/hosts.hpp"

#include <algorithm>
#include <charconv>
#include <functional>
#include <memory>

#include "soma/store/detail/cursor.hpp"
#include "soma/store/detail/environment.hpp"
#include "soma/store/detail/numbering.hpp"
#include "soma/store/readers.hpp"
#include "soma/store/keys.hpp"
#include "soma/store/record.hpp"

namespace soma {

namespace {

std::int64_t micros(std::string_view text) {
  std::int64_t x = 0;
  std::from_chars(text.data(), text.data() + text.size(), x);
  return x;
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
    if (f.name == "machine" && !f["host"].empty()) {
      machines_.insert_or_assign(std::string{f["host"]}, f);
      continue;
    }
    bool left = f.name == "left";
    if (!left && f.name != "ran" && f.name != "failed")
      continue;
    auto host = f["host"];
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

detail::host_scan detail::scan_hosts(const store& s, std::string_view run) {
  if (auto why = why_not_a_run_id(run))
    throw store_error(*why, store_trouble::invalid);
  detail::host_tally tally;
  bool any = false;
  auto held = s.reading();
  auto& env = *held;
  env.read([&](MDB_txn* txn, const std::function<MDB_dbi(detail::db)>& dbi) {
    auto blobs = dbi(detail::db::facts);
    std::uint64_t seen = 0, last_plus_one = 0;
    detail::cursor c{env, txn, blobs};
    auto prefix = detail::run_prefix(run);
    for (bool ok = c.move(MDB_SET_RANGE, prefix); ok && c.key().starts_with(prefix);
         ok = c.move(MDB_NEXT)) {
      std::string_view r;
      std::uint64_t n = 0;
      if (!detail::parse_record_key(c.key(), r, n) || r != run)
        continue;
      any = true;
      ++seen;
      last_plus_one = n + 1;
      tally.add(detail::decode_facts(c.key(), c.value(),
                                     detail::origin{"the fact blob", run, n, env.path()}));
    }
    detail::check_count(env, txn, dbi(detail::db::meta), run, "fact blobs", seen, last_plus_one);
  });
  if (!any)
    throw no_run_error("no run '" + std::string{run} + "' in the store '" + s.path()
                      + "'; `soma runs` lists the runs it holds");
  return {tally.rows(), tally.machines()};
}

} // namespace soma
