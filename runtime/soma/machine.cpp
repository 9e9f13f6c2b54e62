#include "soma/machine.hpp"

#include <cmath>

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace soma {

namespace {

// A small /proc file's text, read in one go (iostreams cost more than the
// reading itself at a reading every half second).
std::string slurp(const char* path) {
  char buf[8192];
  int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return {};
  auto n = ::read(fd, buf, sizeof buf);
  ::close(fd);
  return n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : std::string{};
}

// The CPU counters of /proc/stat's first line: (busy, total) jiffies.
std::pair<unsigned long long, unsigned long long> cpu_jiffies() {
  auto text = slurp("/proc/stat");
  if (!text.starts_with("cpu "))
    return {0, 0};
  const char* p = text.c_str() + 4;
  unsigned long long v[8] = {};
  for (auto& x : v) {
    char* end = nullptr;
    x = std::strtoull(p, &end, 10);
    if (end == p)
      return {0, 0};
    p = end;
  }
  // user nice system idle iowait irq softirq steal
  auto idle = v[3] + v[4];
  unsigned long long total = 0;
  for (auto x : v)
    total += x;
  return {total - idle, total};
}

// The number after `key` in /proc/meminfo's text, in kB, or 0.
unsigned long long meminfo(const std::string& text, const char* key) {
  auto at = text.find(key);
  return at == std::string::npos ? 0 : std::strtoull(text.c_str() + at + std::strlen(key), nullptr, 10);
}

double memory_in_use() {
  auto text = slurp("/proc/meminfo");
  auto total = meminfo(text, "MemTotal:");
  auto available = meminfo(text, "MemAvailable:");
  return total && available <= total
           ? static_cast<double>(total - available) / static_cast<double>(total)
           : 0.0;
}

// A fraction to four places, as the seed's machine fact gave it.
double four_places(double x) {
  return std::round(x * 1e4) / 1e4;
}

} // namespace

fact machine_fact(const reading& r) {
  return fact{"machine",
              {{"id", r.id},
               {"busy", four_places(r.busy)},
               {"memory", four_places(r.memory)},
               {"cores", r.cores},
               {"up_us", r.up_us},
               {"served", r.served}}};
}

machine_sampler::machine_sampler() : started_(std::chrono::steady_clock::now()) {
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) != 0)
    host[0] = '\0';
  id_ = std::string{*host ? host : "unknown"} + "-" + std::to_string(getpid());
}

reading machine_sampler::read(std::uint64_t served) {
  auto [busy, total] = cpu_jiffies();
  reading r;
  r.when_us = std::chrono::duration_cast<std::chrono::microseconds>(
                std::chrono::system_clock::now().time_since_epoch())
                .count();
  std::lock_guard guard{lock_};
  r.id = id_;
  auto d_total = total - last_total_;
  r.busy = d_total ? static_cast<double>(busy - last_busy_) / static_cast<double>(d_total) : 0.0;
  last_busy_ = busy;
  last_total_ = total;
  r.memory = memory_in_use();
  auto cores = sysconf(_SC_NPROCESSORS_ONLN);
  r.cores = cores > 0 ? static_cast<unsigned>(cores) : 1;
  r.up_us = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now()
                                                                   - started_)
              .count();
  r.served = served;
  return r;
}

} // namespace soma
