// The codec benchmark: soma::encode and soma::decode of a few values (decode
// also of bytes at an unaligned address, as LMDB hands them out), beside
// the general path every value could take (its codec's writes recorded,
// then laid out in canonical form: detail::encode_value) and a copy of the
// encoded bytes into a new string (the floor). See
// benchmarks/README.md, "codec".

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "../forward/bench.hpp"
#include "soma/codec.hpp"

namespace {

const char* usage = R"(usage: bench_codec [options]
  --reps R    rounds of every row; the median is shown (7)
  --scale S   calls per round, times S: 200,000 for a small value, 20,000
              for a middling one, 2,000 for 1000 strings, 50 for a value
              of 1 MiB (1)
)";

struct options {
  unsigned reps = 7;
  std::size_t scale = 1;
};

options parse(int argc, char** argv) {
  options opt;
  bench::each_option(argc, argv, "bench_codec", usage, [&](std::string_view a, const char* v) {
    if (a == "--reps")
      opt.reps = static_cast<unsigned>(bench::positive("bench_codec", usage, a, v));
    else if (a == "--scale")
      opt.scale = bench::positive("bench_codec", usage, a, v);
    else
      return false;
    return true;
  });
  return opt;
}

// The median over `reps` rounds of `calls` calls of `f`, in µs a call. `f`
// returns a size, summed so that no call is optimised away.
double median_us(unsigned reps, std::size_t calls, const std::function<std::size_t()>& f) {
  std::vector<double> rounds;
  std::size_t sink = 0;
  for (unsigned r = 0; r < reps; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    for (std::size_t i = 0; i < calls; ++i)
      sink += f();
    auto t1 = std::chrono::steady_clock::now();
    rounds.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / static_cast<double>(calls));
  }
  if (sink == 0)
    std::puts(""); // never: every call returns some bytes
  std::sort(rounds.begin(), rounds.end());
  return rounds[rounds.size() / 2];
}

bool wrong = false;

template <class T>
void row(const char* what, const T& x, std::size_t calls, const options& opt) {
  // Both paths must write the same bytes, and decode must give x back.
  auto bytes = soma::encode(x);
  auto built = soma::detail::encode_value(soma::codec<T>::name(), &soma::detail::write_erased<T>, &x);
  if (bytes != built || soma::decode<T>(bytes) != x) {
    std::printf("%-26s WRONG: the encodings differ or do not decode to the value\n", what);
    wrong = true;
    return;
  }
  auto n = calls * opt.scale;
  auto encode = median_us(opt.reps, n, [&] { return soma::encode(x).size(); });
  auto general = median_us(opt.reps, n, [&] {
    return soma::detail::encode_value(soma::codec<T>::name(), &soma::detail::write_erased<T>, &x).size();
  });
  auto decode = median_us(opt.reps, n, [&] { return soma::decode<T>(bytes).size(); });
  // As LMDB hands a value out: at an address 2 bytes past a word's start.
  auto shifted = std::string(2, 'x') + bytes;
  auto unaligned = std::string_view{shifted}.substr(2);
  if (soma::decode<T>(unaligned) != x) {
    std::printf("%-26s WRONG: the bytes do not decode to the value at +2\n", what);
    wrong = true;
    return;
  }
  // A run's rows time the path written for it: its bytes must be read straight.
  if constexpr (soma::detail::one_run_of_bytes<T> || soma::detail::one_run_of_numbers<T>) {
    if (!soma::detail::run_in(bytes, soma::codec<T>::name(), soma::detail::run_kind<T>)
        || !soma::detail::run_in(unaligned, soma::codec<T>::name(), soma::detail::run_kind<T>)) {
      std::printf("%-26s WRONG: a run's bytes are not read straight\n", what);
      wrong = true;
      return;
    }
  }
  auto decode_at_2 = median_us(opt.reps, n, [&] { return soma::decode<T>(unaligned).size(); });
  auto reader_at_2 = median_us(opt.reps, n, [&] {
    std::optional<T> out;
    soma::detail::decode_value(unaligned, soma::codec<T>::name(), &soma::detail::read_erased<T>, &out);
    return out->size();
  });
  auto copy = median_us(opt.reps, n, [&] { return std::string{bytes}.size(); });
  std::printf("%-26s %8zu %9.3f %9.3f %7.2f %9.3f %9.3f %9.3f %9.3f %7.2f\n", what, bytes.size(), encode,
              general, general / encode, decode, decode_at_2, reader_at_2, copy, encode / copy);
}

} // namespace

int main(int argc, char** argv) {
  auto opt = parse(argc, argv);
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  std::printf("bench_codec: µs a call, median of %u rounds; glibc malloc %s\n", opt.reps,
              tunables ? tunables : "as it comes (GLIBC_TUNABLES unset)");
  std::printf("general: the value's codec's writes recorded, then laid out in canonical form "
              "(detail::encode_value, the path of every value that is not one run)\n");
  std::printf("dec +2: decode of the bytes at an address 2 bytes past a word's start, as LMDB hands them out\n");
  std::printf("reader +2: the same through the general reader (detail::decode_value, the path of every value "
              "without one of its own)\n");
  std::printf("copy: the encoded bytes copied into a new std::string (the floor)\n\n");
  std::printf("%-26s %8s %9s %9s %7s %9s %9s %9s %9s %7s\n", "value", "bytes", "encode", "general", "g / enc",
              "decode", "dec +2", "reader +2", "copy", "enc/copy");
  row("string of 16 bytes", std::string(16, 's'), 200000, opt);
  row("vector<double> of 8", std::vector<double>(8, 0.5), 200000, opt);
  std::map<std::string, std::int64_t> m;
  for (int i = 0; i < 20; ++i)
    m.emplace("key " + std::to_string(i), i);
  row("map<string,int64> of 20", m, 20000, opt);
  std::vector<std::int64_t> ints(1000);
  for (std::size_t i = 0; i < ints.size(); ++i)
    ints[i] = static_cast<std::int64_t>(i) - 500;
  row("vector<int64> of 1000", ints, 20000, opt);
  std::vector<std::string> strings(1000);
  for (std::size_t i = 0; i < strings.size(); ++i)
    strings[i] = "string " + std::to_string(i * 7919);
  row("vector<string> of 1000", strings, 2000, opt);
  std::string mib(std::size_t{1} << 20, 'v');
  row("string of 1 MiB", mib, 50, opt);
  std::vector<double> doubles((std::size_t{1} << 20) / sizeof(double));
  for (std::size_t i = 0; i < doubles.size(); ++i)
    doubles[i] = static_cast<double>(i) * 0.5;
  row("vector<double> of 1 MiB", doubles, 50, opt);
  // A run inside another value: the general path, not the run's own.
  row("vector<string>, 1 of 1 MiB", std::vector<std::string>{mib}, 50, opt);
  return wrong ? 1 : 0;
}
