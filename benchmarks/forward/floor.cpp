// (a) The floor: the three steps as plain function calls on one thread.

#include "bench.hpp"

namespace bench {

namespace {

// noipa: real calls, and the optimiser learns nothing across them, so the
// loop cannot collapse into one multiply-add.
[[gnu::noipa]] std::int64_t call_add_one(std::int64_t x) { return add_one(x); }
[[gnu::noipa]] std::int64_t call_times_three(std::int64_t x) { return times_three(x); }
[[gnu::noipa]] std::int64_t call_minus_two(std::int64_t x) { return minus_two(x); }

} // namespace

row floor_calls(const options& opt) {
  row r{"a  direct calls (floor)"};
  volatile std::int64_t first = 0;
  // A forward here takes nanoseconds: run 100 times as many so that a
  // repetition lasts milliseconds, well above the clock's resolution.
  measure(r, opt.reps, opt.forwards * 100, [&](std::size_t n) {
    std::int64_t sum = 0;
    std::int64_t base = first;
    auto began = clock::now();
    for (std::size_t i = 0; i < n; ++i) {
      std::int64_t x = base + static_cast<std::int64_t>(i);
      opaque(x);
      auto y = call_minus_two(call_times_three(call_add_one(x)));
      opaque(y);
      sum += y;
    }
    auto took = clock::now() - began;
    if (sum != expected_sum(static_cast<std::int64_t>(n)))
      r.problems.push_back("direct calls summed to " + std::to_string(sum));
    return took;
  });
  return r;
}

} // namespace bench
