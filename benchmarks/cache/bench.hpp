#pragma once

// What every implementation of the cache benchmark shares: the three values a
// node costing 1 ms gives (a small one and two of 1 MiB), the options, and the
// rows. How a row is measured (bench::row, bench::measure) comes from the
// forward benchmark.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <sys/resource.h>

#include "../forward/bench.hpp"

namespace caf {
class actor_system;
} // namespace caf

namespace bench {

// -- options ------------------------------------------------------------------

struct cache_options {
  std::size_t recalls = 10000; ///< per repetition: small-value recalls, and small pieces x 10
  std::size_t big = 1000;      ///< per repetition: 1 MiB recalls and pieces
  std::size_t computes = 100;  ///< per repetition: forwards that run the 1 ms node (b, e)
  unsigned reps = 5;
  std::string dir;  ///< where the store goes
  std::string rows; ///< letters of the rows to run (a always runs); empty: all

  [[nodiscard]] bool wants(char letter) const {
    return rows.empty() || rows.find(letter) != std::string::npos;
  }
};

// -- the node: 1 ms of work, whatever it returns -------------------------------

/// What the node costs, its output's making included.
inline constexpr auto node_cost = std::chrono::milliseconds{1};

/// Busy-waits (no sleep: the worker thread stays busy, as a computing node
/// keeps it) until `node_cost` has passed since `began`.
inline void spend_rest(clock::time_point began) {
  while (clock::now() - began < node_cost) {
  }
}

// -- the values: each a function of the node's input x, checked exactly -------

/// A small value: std::vector<double> of 8.
struct small_value {
  using type = std::vector<double>;
  static constexpr const char* title = "small: std::vector<double> of 8";
  static constexpr const char* tag = "small";
  static constexpr std::size_t raw_bytes = 8 * sizeof(double);
  static type make(std::int64_t x) {
    type v(8);
    for (std::size_t i = 0; i < v.size(); ++i)
      v[i] = static_cast<double>(x) + 0.125 * static_cast<double>(i);
    return v;
  }
  static bool right(const type& v, std::int64_t x) { return v == make(x); }
};

/// 1 MiB of doubles: std::vector<double> of 131072.
struct big_vector {
  using type = std::vector<double>;
  static constexpr const char* title = "1 MiB: std::vector<double> of 131072";
  static constexpr const char* tag = "1 MiB vector";
  static constexpr std::size_t size = 131072;
  static constexpr std::size_t raw_bytes = size * sizeof(double);
  static type make(std::int64_t x) {
    type v(size);
    for (std::size_t i = 0; i < size; ++i)
      v[i] = static_cast<double>(x) + static_cast<double>(i);
    return v;
  }
  static bool right(const type& v, std::int64_t x) {
    if (v.size() != size)
      return false;
    bool ok = true;
    for (std::size_t i = 0; i < size; ++i)
      ok &= v[i] == static_cast<double>(x) + static_cast<double>(i);
    return ok;
  }
};

/// 1 MiB of text: "abc...zabc..." starting at letter x mod 26.
struct big_text {
  using type = std::string;
  static constexpr const char* title = "1 MiB: std::string of 1048576 bytes";
  static constexpr const char* tag = "1 MiB string";
  static constexpr std::size_t raw_bytes = std::size_t{1} << 20;
  static const std::string& letters() {
    static const std::string s = [] {
      std::string t(raw_bytes + 26, '\0');
      for (std::size_t i = 0; i < t.size(); ++i)
        t[i] = static_cast<char>('a' + i % 26);
      return t;
    }();
    return s;
  }
  static std::size_t offset(std::int64_t x) { return static_cast<std::size_t>(x % 26); }
  static type make(std::int64_t x) { return letters().substr(offset(x), raw_bytes); }
  static bool right(const type& v, std::int64_t x) {
    return v.size() == raw_bytes
           && std::memcmp(v.data(), letters().data() + offset(x), raw_bytes) == 0;
  }
};

// -- rows -----------------------------------------------------------------------

/// A row: bench::row (µs per operation, one per repetition), with what the
/// soma facts said it took.
struct cache_row : row {
  using row::row;
  /// The mean took_us of the row's `recalled` (or `kept`) facts, one per
  /// repetition; empty when the row has no such facts.
  std::vector<double> took;
  /// Bytes the row copies, encodes or recalls: its ratio is to a memcpy of
  /// this many (0: no ratio).
  std::size_t bytes = 0;
  /// Minor page faults of the whole process (all threads, getrusage) per
  /// operation over each repetition, its untimed checks included.
  std::vector<double> faults;
};

/// Minor page faults of the process so far, all threads.
inline long minor_faults() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_minflt;
}

/// bench::measure, also putting each repetition's page faults per operation
/// into `r.faults` (the warm-up's left out).
template <class Run>
void measure_faults(cache_row& r, unsigned reps, std::size_t n, Run&& run) {
  std::vector<double> faults;
  measure(r, reps, n, [&](std::size_t k) {
    auto before = minor_faults();
    auto took = run(k);
    faults.push_back(static_cast<double>(minor_faults() - before) / static_cast<double>(k));
    return took;
  });
  r.faults.assign(faults.begin() + 1, faults.end());
}

/// The rows of one value.
struct section {
  std::string title;
  std::size_t raw_bytes = 0;
  std::size_t encoded_bytes = 0; ///< soma::encode of the value
  std::vector<cache_row> rows;
};

// -- the implementations, one file each ---------------------------------------

/// (a) memcpy of `bytes` between two warm buffers (the floor), and into a
/// freshly allocated buffer.
std::vector<cache_row> memcpy_floor(std::size_t bytes, std::size_t n, const cache_options& opt);

/// (b)-(e) soma: the 1 ms node uncached, recalled from its store, and missed
/// (ran + kept); then (p) the pieces of a recall without actors. One section
/// per value.
section soma_small(caf::actor_system& sys, const cache_options& opt);
section soma_big_vector(caf::actor_system& sys, const cache_options& opt);
section soma_big_text(caf::actor_system& sys, const cache_options& opt);

} // namespace bench
