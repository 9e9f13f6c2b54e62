#include "soma/machine.hpp"

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>

namespace soma {

namespace {

// The CPU counters of /proc/stat's first line: (busy, total) jiffies.
std::pair<unsigned long long, unsigned long long> cpu_jiffies() {
  std::ifstream in{"/proc/stat"};
  std::string cpu;
  unsigned long long v[8] = {};
  in >> cpu;
  for (auto& x : v)
    in >> x;
  if (!in || cpu != "cpu")
    return {0, 0};
  // user nice system idle iowait irq softirq steal
  auto idle = v[3] + v[4];
  unsigned long long total = 0;
  for (auto x : v)
    total += x;
  return {total - idle, total};
}

double memory_in_use() {
  std::ifstream in{"/proc/meminfo"};
  std::string key;
  unsigned long long value = 0, total = 0, available = 0;
  std::string unit;
  while (in >> key >> value >> unit) {
    if (key == "MemTotal:")
      total = value;
    else if (key == "MemAvailable:")
      available = value;
  }
  return total ? static_cast<double>(total - available) / static_cast<double>(total) : 0.0;
}

std::string fixed(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4f", x);
  return buf;
}

} // namespace

fact machine_reading::to_fact() const {
  return fact{"machine",
              {{"id", id},
               {"busy", fixed(busy)},
               {"memory", fixed(memory)},
               {"cores", std::to_string(cores)},
               {"up_us", std::to_string(up_us)},
               {"served", std::to_string(served)}}};
}

machine_sampler::machine_sampler() : started_(std::chrono::steady_clock::now()) {
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) != 0)
    host[0] = '\0';
  id_ = std::string{*host ? host : "unknown"} + "-" + std::to_string(getpid());
}

machine_reading machine_sampler::read(std::uint64_t served) {
  auto [busy, total] = cpu_jiffies();
  machine_reading r;
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
