#pragma once

// Stores filled for the served-store benchmarks: runs of the seed's facts
// written straight by the store's writer, as a recorder would leave them.

#include <cstdint>
#include <cstdio>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "soma/reading.hpp"
#include "soma/store/backend.hpp"
#include "soma/store/readings.hpp"
#include "soma/store/store.hpp"

namespace soma_bench {

/// The seed's facts for forward `i`: three nodes ran, it finished, a loss.
inline std::vector<soma::fact> seed_facts(std::uint64_t i) {
  return {soma::fact{"ran", {{"node", "tokenize"}, {"began_us", 8}, {"took_us", 31}}},
          soma::fact{"ran", {{"node", "embed"}, {"began_us", 52}, {"took_us", 12}}},
          soma::fact{"ran", {{"node", "score"}, {"began_us", 70}, {"took_us", 4}}},
          soma::fact{"finished", {{"took_us", 80}}},
          soma::fact{"loss", {{"value", 2.0 / static_cast<double>(i + 1)}}}};
}

/// `runs` runs (run0, run1, ...) of `forwards` forwards each, written in
/// transactions of 1000, then 100 machines' readings. `progress`, when
/// given, is told each run's forwards written so far, every million.
inline void fill(const std::string& dir, std::size_t runs, std::size_t forwards,
                 const std::function<void(std::size_t)>& progress = {}) {
  soma::store s{dir};
  for (std::size_t r = 0; r < runs; ++r) {
    soma::detail::writer_options o{.run = "run" + std::to_string(r), .summarising = {"loss"}};
    auto sink = s.backend().records(o, 0);
    for (std::size_t done = 0; done < forwards;) {
      std::vector<soma::detail::held_forward> batch;
      for (std::size_t i = 0; i < 1000 && done < forwards; ++i, ++done)
        batch.push_back({done + 1, std::nullopt, seed_facts(done), soma::outcome::ok, 80,
                         1'700'000'000 + static_cast<std::int64_t>(done / 1000)});
      auto n = sink->write(batch, {}, false);
      if (n.error)
        throw std::runtime_error(soma::describe(n.error));
      if (progress && done % 1'000'000 == 0)
        progress(done);
    }
  }
  for (int m = 0; m < 100; ++m)
    soma::put_reading(s, soma::reading{"machine-" + std::to_string(m), 0.5, 0.5, 2, 1000, 1,
                                       1'700'000'000'000'000 + m});
}

} // namespace soma_bench
