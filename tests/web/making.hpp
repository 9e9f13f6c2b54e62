#pragma once

// The store the web tests read: a run of 250 forwards (a loss summarised,
// every tenth broke, a user fact), a second run, two machines' readings and
// a study; and appending forwards to a run while a stream watches.

#include <string>
#include <vector>

#include "soma/store/readings.hpp"
#include "soma/store/trials.hpp"
#include "writing.hpp"

namespace soma_test {

inline written forward_of(std::uint64_t n, std::int64_t when_s = 1'900'000'000) {
  soma::record r;
  r.when_us = (when_s + static_cast<std::int64_t>(n / 10)) * 1'000'000;
  r.state = n % 10 == 9 ? soma::outcome::broke : soma::outcome::ok;
  r.nodes = 2;
  r.took_us = 100 + static_cast<std::int64_t>(n);
  auto loss = 10.0 / static_cast<double>(n + 1);
  r.summary = {{"loss.value", loss}};
  std::vector<soma::fact> facts{
    {"ran", {{"node", "tokenize"}, {"began_us", 0}, {"took_us", 40}}},
    {"ran", {{"node", "score"}, {"began_us", 40}, {"took_us", 60 + n}}},
    {"finished", {{"took_us", r.took_us}}},
    {"loss", {{"value", loss}}},
    {"lr", {{"value", 0.01}, {"note", "a \"quoted\" note"}}}};
  return {r, facts};
}

inline void append(soma::store& s, const std::string& run, std::uint64_t first, std::uint64_t count) {
  std::vector<written> xs;
  for (auto n = first; n < first + count; ++n)
    xs.push_back(forward_of(n));
  write_forwards(s, run, std::move(xs), first);
}

inline void make_store(soma::store& s) {
  append(s, "sweep-a", 0, 250);
  append(s, "sweep-b", 0, 30);
  for (auto [id, when] : {std::pair{"host-1", 1'900'000'100'000'000}, {"host-2", 1'900'000'097'500'000}}) {
    soma::reading r;
    r.id = id;
    r.when_us = when;
    r.busy = 0.25;
    r.memory = 0.5;
    r.cores = 2;
    r.served = 7;
    r.every_us = 500'000;
    soma::put_reading(s, r);
  }
  soma::add_trials(s, "lr", std::vector<soma::values>{soma::values{{"lr", 0.1}}, soma::values{{"lr", 0.01}}},
                   "lr_sweep");
}

} // namespace soma_test
