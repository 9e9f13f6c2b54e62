// (a) the floor: copying the value's bytes, which a recall of it cannot beat.
// Between two warm buffers (what the ratios divide by), and into a buffer
// allocated for the copy (an owned copy, as a recall hands out).

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>

#include "bench.hpp"

namespace bench {

namespace {

/// Tells the compiler `p`'s bytes are read and changed: no copy is elided.
inline void touched(void* p) noexcept { asm volatile("" : : "r"(p) : "memory"); }

std::string pattern(std::size_t bytes, char first) {
  std::string s(bytes, '\0');
  for (std::size_t i = 0; i < bytes; ++i)
    s[i] = static_cast<char>(first + i % 61);
  return s;
}

std::string size_text(std::size_t bytes) {
  return bytes >= (std::size_t{1} << 20) ? std::to_string(bytes >> 20) + " MiB"
                                         : std::to_string(bytes) + " B";
}

} // namespace

std::vector<cache_row> memcpy_floor(std::size_t bytes, std::size_t n, const cache_options& opt) {
  std::vector<cache_row> rows;
  auto src = pattern(bytes, '!');

  cache_row warm{"a  memcpy " + size_text(bytes) + ", warm buffers (floor)"};
  warm.bytes = bytes;
  {
    std::string dst(bytes, '\0');
    measure_faults(warm, opt.reps, n, [&](std::size_t k) {
      std::memset(dst.data(), 0, bytes);
      auto began = clock::now();
      for (std::size_t i = 0; i < k; ++i) {
        std::memcpy(dst.data(), src.data(), bytes);
        touched(dst.data());
      }
      auto took = clock::now() - began;
      if (dst != src)
        warm.problems.push_back("the copy differs from its source");
      return took;
    });
  }
  rows.push_back(std::move(warm));

  // Allocated and copied in batches of up to 64 KiB, timed; checked and freed
  // after each batch, untimed (a recall's caller frees its value later too).
  cache_row fresh{"a2 new buffer + memcpy " + size_text(bytes)};
  fresh.bytes = bytes;
  std::size_t batch = std::max<std::size_t>(1, (std::size_t{64} << 10) / bytes);
  std::vector<std::unique_ptr<char[]>> buffers(batch);
  measure_faults(fresh, opt.reps, n, [&](std::size_t k) {
    std::size_t wrong = 0;
    clock::duration took{};
    for (std::size_t done = 0; done < k;) {
      auto m = std::min(batch, k - done);
      auto began = clock::now();
      for (std::size_t i = 0; i < m; ++i) {
        buffers[i].reset(new char[bytes]);
        std::memcpy(buffers[i].get(), src.data(), bytes);
        touched(buffers[i].get());
      }
      took += clock::now() - began;
      for (std::size_t i = 0; i < m; ++i) {
        wrong += std::memcmp(buffers[i].get(), src.data(), bytes) != 0;
        buffers[i].reset();
      }
      done += m;
    }
    if (wrong)
      fresh.problems.push_back(std::to_string(wrong) + " copies differ from their source");
    return took;
  });
  rows.push_back(std::move(fresh));
  return rows;
}

} // namespace bench
