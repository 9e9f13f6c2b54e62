// The fleet benchmark's store and its readers: 100 machines' readings
// written with soma::put_reading, a remote run written as a recorder leaves
// one, then standing / hosts / fleet next to bare LMDB scans of their keys.

#include <algorithm>
#include <chrono>
#include <ctime>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <numeric>

#include "../forward/bench.hpp"
#include "bench.hpp"
#include "soma/fact.hpp"
#include "soma/store/detail/environment.hpp"
#include "soma/store/fleet.hpp"
#include "soma/store/hosts.hpp"
#include "soma/store/keys.hpp"
#include "soma/store/readings.hpp"
#include "soma/store/standing.hpp"
#include "soma/store/detail/record.hpp"

namespace bench {

namespace {

constexpr std::int64_t t0_us = 1800000000LL * 1000000; // 2027-01-15T08:00:00Z
constexpr std::int64_t tick_us = 500000;                // reporting every 0.5 s
constexpr std::size_t machine_fact_every = 500;        // forwards between machine facts

// CPU time this thread has used, in µs.
double thread_cpu_us() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e6 + static_cast<double>(t.tv_nsec) / 1e3;
}

double ms_since(clock::time_point t) {
  return std::chrono::duration<double, std::milli>(clock::now() - t).count();
}

// Forward i of the remote run: `a` here, `b` on w1 (its machine's reading
// now and then, as a worker sends one per reading interval), the round trip.
std::vector<soma::fact> trip(std::uint64_t i) {
  std::vector<soma::fact> told{{"ran", {{"node", "a"}, {"began_us", 2}, {"took_us", 3}}}};
  if (i % machine_fact_every == 0)
    told.push_back({"machine",
                    {{"id", machine_id(0)}, {"busy", 0.5}, {"memory", 0.25},
                     {"cores", 2}, {"up_us", 1000 + i}, {"served", i + 1}, {"host", fleet_host}}});
  told.push_back({"ran", {{"node", "b"}, {"began_us", 40}, {"took_us", 30 + i % 7},
                          {"host", fleet_host}}});
  told.push_back({"left", {{"host", fleet_host}, {"began_us", 10}, {"took_us", 200 + i % 13}}});
  told.push_back({"finished", {{"took_us", 230}}});
  return told;
}

// Reads every value of `which` under `prefix`, adding up its bytes: what any
// reader of those keys cannot avoid (a cursor over them, every byte
// touched), with no decoding. Returns how many bytes it read.
std::size_t bare_scan(const soma::store& s, soma::detail::db which, const std::string& prefix) {
  std::size_t bytes = 0;
  unsigned sum = 0;
  auto& env = s.env();
  env.read([&](MDB_txn* txn, const std::function<MDB_dbi(soma::detail::db)>& dbi) {
    MDB_cursor* cur = nullptr;
    if (dbi(which) == 0 || mdb_cursor_open(txn, dbi(which), &cur) != 0)
      return;
    std::unique_ptr<MDB_cursor, void (*)(MDB_cursor*)> closing{cur, mdb_cursor_close};
    MDB_val k = soma::detail::val(prefix), v{};
    for (int rc = mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE);
         rc == 0 && soma::detail::view(k).starts_with(prefix);
         rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
      auto* p = static_cast<const unsigned char*>(v.mv_data);
      sum = std::accumulate(p, p + v.mv_size, sum);
      bytes += v.mv_size;
    }
  });
  asm volatile("" : : "r"(sum)); // the sum is used: the bytes must be read
  return bytes;
}

// Calls f once to warm up, then opt.reps times into r.ms.
void time_calls(timed_row& r, const fleet_options& opt, const std::function<void()>& f) {
  f();
  for (std::size_t i = 0; i < opt.reps; ++i) {
    auto t = clock::now();
    f();
    r.ms.push_back(ms_since(t));
  }
}

} // namespace

std::string machine_id(std::size_t m) {
  char id[32];
  std::snprintf(id, sizeof id, "bench%03zu-%zu", m, 1000 + m);
  return id;
}

built_store write_fleet_store(soma::store& s, const fleet_options& opt) {
  built_store built;
  std::vector<double> per_reading, cpu_per_reading;
  for (std::size_t t = 0; t < opt.readings; ++t) {
    auto began = clock::now();
    auto cpu = thread_cpu_us();
    for (std::size_t m = 0; m < opt.machines; ++m) {
      auto when = t0_us + static_cast<std::int64_t>(t) * tick_us + static_cast<std::int64_t>(m) * 1000;
      soma::put_reading(s, {machine_id(m), 0.01 * static_cast<double>(m % 100), 0.4,
                            static_cast<std::uint32_t>(2 + m % 8),
                            static_cast<std::int64_t>(t) * tick_us, m == 0 ? t : 0, when});
    }
    per_reading.push_back(ms_since(began) * 1e3 / static_cast<double>(opt.machines));
    cpu_per_reading.push_back((thread_cpu_us() - cpu) / static_cast<double>(opt.machines));
  }
  built.put_reading_us = row::median_of(per_reading);
  built.put_reading_cpu_us = row::median_of(cpu_per_reading);
  auto began = clock::now();
  s.env().write([&](MDB_txn* txn, const std::function<MDB_dbi(soma::detail::db)>& dbi) {
    for (std::uint64_t i = 0; i < opt.forwards; ++i) {
      auto key = soma::detail::record_key(fleet_run, i);
      soma::record r{i, soma::outcome::ok, 2, 230, 1800000000, {}};
      s.env().put(txn, dbi(soma::detail::db::records), key, soma::detail::encode_record(r, key));
      s.env().put(txn, dbi(soma::detail::db::facts), key, soma::detail::encode_facts(trip(i), key));
    }
  });
  built.run_ms = ms_since(began);
  return built;
}

std::vector<timed_row> reader_rows(const soma::store& s, const fleet_options& opt) {
  std::vector<timed_row> rows;
  auto expect = [](timed_row& r, bool ok, const std::string& what) {
    if (!ok)
      r.problems.push_back(r.name + ": " + what);
  };

  // -- standing ---------------------------------------------------------------
  timed_row a{"a  bare scan of the latest readings (floor)"};
  std::size_t latest_bytes = 0;
  time_calls(a, opt, [&] { latest_bytes = bare_scan(s, soma::detail::db::readings, "latest/"); });
  expect(a, latest_bytes > 0, "read no bytes");
  a.note = std::to_string(latest_bytes) + " bytes, " + std::to_string(opt.machines) + " entries";
  auto floor_a = row::median_of(a.ms);
  timed_row b{"b  standing(store)"};
  b.floor_ms = floor_a;
  b.target_ms = 5;
  std::map<std::string, soma::reading> latest;
  time_calls(b, opt, [&] { latest = soma::standing(s); });
  expect(b, latest.size() == opt.machines, "saw " + std::to_string(latest.size()) + " machines");
  expect(b, !latest.empty() && latest.begin()->second.served == opt.readings - 1,
         "machine 0's latest reading is not its last");
  timed_row b2{"b2 readings(store, one machine): its history"};
  b2.floor_ms = floor_a;
  std::size_t kept = 0;
  time_calls(b2, opt, [&] { kept = soma::readings(s, machine_id(0)).size(); });
  expect(b2, kept == std::min(opt.readings, soma::kept_per_machine),
         "kept " + std::to_string(kept) + " readings");

  // -- fleet ------------------------------------------------------------------
  timed_row c{"c  bare scan of the run's fact blobs (floor)"};
  std::size_t blob_bytes = 0;
  time_calls(c, opt, [&] {
    blob_bytes = bare_scan(s, soma::detail::db::facts, soma::detail::run_prefix(fleet_run));
  });
  expect(c, blob_bytes > 0, "read no bytes");
  c.note = std::to_string(blob_bytes) + " bytes, " + std::to_string(opt.forwards) + " blobs";
  auto floor_c = row::median_of(c.ms);
  timed_row c2{"c2 hosts(store, run): the blobs decoded"};
  c2.floor_ms = floor_c;
  std::vector<soma::host_row> hosts;
  time_calls(c2, opt, [&] { hosts = soma::hosts(s, fleet_run); });
  timed_row d{"d  fleet(store, run)"};
  d.floor_ms = floor_c;
  d.target_ms = 100;
  std::vector<soma::fleet_row> fleet;
  time_calls(d, opt, [&] { fleet = soma::fleet(s, fleet_run); });
  std::int64_t took = 0, round = 0;
  for (std::uint64_t i = 0; i < opt.forwards; ++i) {
    took += static_cast<std::int64_t>(30 + i % 7);
    round += static_cast<std::int64_t>(200 + i % 13);
  }
  expect(d, fleet.size() == opt.machines + 1,
         "has " + std::to_string(fleet.size()) + " rows, not here, w1 and the unused machines");
  expect(d, fleet.size() > 1 && fleet[1].host == fleet_host && fleet[1].machine == machine_id(0)
              && fleet[1].slices == opt.forwards && fleet[1].took_us == took
              && fleet[1].waiting_us == round - took,
         "w1's row is not the run's");
  expect(c2, hosts.size() == 2 && hosts[1].waiting_us == round - took, "w1's row is not the run's");
  for (auto* r : {&a, &b, &b2, &c, &c2, &d})
    rows.push_back(std::move(*r));
  return rows;
}

} // namespace bench
