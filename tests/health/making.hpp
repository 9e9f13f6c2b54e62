#pragma once

// What the health tests build stores from: readings and forwards at chosen
// times, and a judgement narrowed to one rule.

#include <optional>
#include <string>
#include <vector>

#include "soma/health/judge.hpp"
#include "soma/store/readings.hpp"
#include "writing.hpp"

namespace soma_test {

/// A moment far from the test machine's clock: every time here is by the
/// writers' clocks, never the reader's.
inline constexpr std::int64_t t0_us = 1'900'000'000'000'000;
inline constexpr std::int64_t t0_s = t0_us / 1'000'000;
inline constexpr std::int64_t s_us = 1'000'000;

inline void reading_at(soma::store& s, const std::string& id, std::int64_t when_us,
                       std::int64_t every_us = 500'000, double busy = 0.1, double memory = 0.2) {
  soma::reading r;
  r.id = id;
  r.when_us = when_us;
  r.every_us = every_us;
  r.busy = busy;
  r.memory = memory;
  r.cores = 2;
  soma::put_reading(s, r);
}

inline soma::record record_at(std::int64_t when_s, soma::outcome state = soma::outcome::ok,
                              std::vector<soma::field> summary = {}) {
  soma::record r;
  r.when_us = when_s * 1'000'000;
  r.state = state;
  r.summary = std::move(summary);
  return r;
}

inline soma::fact ran(const std::string& node, std::int64_t took_us, const std::string& host = "") {
  soma::fact f{"ran", {{"node", node}, {"took_us", took_us}}};
  if (!host.empty())
    f.fields.emplace_back("host", host);
  return f;
}

inline soma::fact left(const std::string& host, std::int64_t took_us) {
  return soma::fact{"left", {{"host", host}, {"took_us", took_us}}};
}

/// a-1 reports every 0.5 s for a minute from t0; b-1 too, but stops after
/// t0 + 20 s and is back at t0 + 40 s: one quiet_machine episode.
inline void write_gap(soma::store& s) {
  for (std::int64_t k = 0; k <= 120; ++k) {
    auto when = t0_us + k * 500'000;
    reading_at(s, "a-1", when);
    if (when <= t0_us + 20 * s_us || when >= t0_us + 40 * s_us)
      reading_at(s, "b-1", when);
  }
}

/// The opinions of one rule of `book` (the shipped rules by default).
inline std::vector<soma::health::opinion>
opinions_of(const soma::store& s, const std::string& rule,
            const soma::health::judge_options& o = {},
            const soma::health::rulebook& book = soma::health::rulebook::shipped()) {
  std::vector<soma::health::opinion> out;
  for (auto& op : soma::health::judge(s, book, o).opinions)
    if (op.rule == rule)
      out.push_back(op);
  return out;
}

} // namespace soma_test
