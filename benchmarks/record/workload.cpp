// The forwards every writer row writes, and what the rows share besides:
// scratch directories, memory and CPU readings.

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include <sys/resource.h>
#include <unistd.h>

#include "bench.hpp"
#include "soma/detail/seal.hpp"
#include "soma/fact.hpp"
#include "soma/store/keys.hpp"

namespace bench {

namespace {

// What a forward of the seed graph tells a recorder, with timings like the
// ones a real run shows (tens of microseconds; the cheap nodes take 0-1):
// three `ran`, one `finished`, then the loss the caller tells.
std::vector<soma::fact> facts_of(std::size_t n, double loss) {
  auto i = static_cast<std::int64_t>(n);
  std::int64_t tokenize_began = 20 + i % 11, tokenize_took = 8 + i % 9;
  std::int64_t embed_began = tokenize_began + tokenize_took + 25 + i % 13, embed_took = i % 2;
  std::int64_t score_began = embed_began + embed_took + 6 + i % 5, score_took = i % 2;
  return {
    soma::fact{"ran", {{"node", "tokenize"}, {"began_us", tokenize_began}, {"took_us", tokenize_took}}},
    soma::fact{"ran", {{"node", "embed"}, {"began_us", embed_began}, {"took_us", embed_took}}},
    soma::fact{"ran", {{"node", "score"}, {"began_us", score_began}, {"took_us", score_took}}},
    soma::fact{"finished", {{"took_us", score_began + score_took + 1}}},
    soma::fact{"loss", {{"value", loss}}},
  };
}

double mean_size(const std::vector<std::string>& xs) {
  double sum = 0;
  for (auto& x : xs)
    sum += static_cast<double>(x.size());
  return xs.empty() ? 0 : sum / static_cast<double>(xs.size());
}

} // namespace

double loss_at(std::size_t n) {
  auto x = static_cast<double>(n);
  return 0.1 + 2.4 * std::exp(-x / 30000.0) + 0.05 * std::sin(x * 0.37);
}

workload make_workload(std::size_t n) {
  workload w;
  w.records.reserve(n);
  w.loss.reserve(n);
  w.keys.reserve(n);
  w.record_bytes.reserve(n);
  w.blob_bytes.reserve(n);
  auto when = std::chrono::duration_cast<std::chrono::seconds>(
                std::chrono::system_clock::now().time_since_epoch())
                .count();
  clock::duration encoding{};
  // The run's words, as the store's writer keeps them (format 4): the first
  // forward adds its node names and `loss`; the rest name them.
  soma::detail::run_words words;
  for (std::size_t i = 0; i < n; ++i) {
    double loss = loss_at(i);
    auto facts = facts_of(i, loss);
    // The record as the recorder makes it: state from `finished`, nodes from
    // the `ran` facts, the summarised loss's fields under "loss.<field>".
    soma::record r;
    r.forward = i;
    r.state = soma::outcome::ok;
    r.nodes = 3;
    r.took_us = facts[3].find("took_us")->integer_or(0);
    r.when_us = when * 1'000'000;
    r.summary.emplace_back("loss.value", *facts[4].find("value"));
    w.keys.push_back(soma::detail::record_key(run_id, i));
    auto began = clock::now();
    w.record_bytes.push_back(soma::detail::encode_record(r, w.keys.back()));
    w.blob_bytes.emplace_back();
    soma::detail::encode_facts_into(w.blob_bytes.back(), facts, w.keys.back(), words);
    encoding += clock::now() - began;
    w.records.push_back(std::move(r));
    w.loss.push_back(loss);
  }
  w.encode_us = std::chrono::duration<double, std::micro>(encoding).count()
                / static_cast<double>(std::max<std::size_t>(n, 1));
  // The same encoding again, each output freed before the next as a
  // recorder frees a batch's bytes once written: the pass above also paid
  // for the fresh pages that keeping every output took.
  clock::duration again{};
  std::size_t sum = 0;
  for (std::size_t i = 0; i < n; ++i) {
    auto facts = facts_of(i, w.loss[i]);
    auto began = clock::now();
    auto record = soma::detail::encode_record(w.records[i], w.keys[i]);
    std::string blob;
    soma::detail::encode_facts_into(blob, facts, w.keys[i], words);
    again += clock::now() - began;
    sum += record.size() + blob.size();
  }
  w.encode_reused_us = std::chrono::duration<double, std::micro>(again).count()
                       / static_cast<double>(std::max<std::size_t>(n, 1));
  // As the record log encodes (store/soma/store/record_log.cpp): each value
  // into the one buffer it keeps, cleared before the next. Timed a batch of
  // 1000 forwards at a time, their facts made before the batch's clock
  // starts, so that no reading of the clock (27.5 ns each here) is timed
  // with every forward.
  clock::duration kept{};
  std::string buffer;
  std::vector<std::vector<soma::fact>> batch;
  for (std::size_t from = 0; from < n; from += 1000) {
    auto to = std::min(n, from + 1000);
    batch.clear();
    for (auto i = from; i < to; ++i)
      batch.push_back(facts_of(i, w.loss[i]));
    auto began = clock::now();
    for (auto i = from; i < to; ++i) {
      buffer.clear();
      soma::detail::encode_record_into(buffer, w.records[i], w.keys[i]);
      sum += buffer.size();
      buffer.clear();
      soma::detail::encode_facts_into(buffer, batch[i - from], w.keys[i], words);
      sum += buffer.size();
    }
    kept += clock::now() - began;
  }
  w.encode_kept_us = std::chrono::duration<double, std::micro>(kept).count()
                     / static_cast<double>(std::max<std::size_t>(n, 1));
  if (sum == 1)
    std::puts("");
  // The checksums alone: sealing again computes the same sum over the same
  // bytes, in place.
  auto began = clock::now();
  for (std::size_t i = 0; i < n; ++i) {
    soma::detail::seal(w.record_bytes[i], w.keys[i]);
    soma::detail::seal(w.blob_bytes[i], w.keys[i]);
  }
  w.checksum_us = std::chrono::duration<double, std::micro>(clock::now() - began).count()
                  / static_cast<double>(std::max<std::size_t>(n, 1));
  return w;
}

double workload::record_bytes_mean() const { return mean_size(record_bytes); }
double workload::blob_bytes_mean() const { return mean_size(blob_bytes); }

std::string scratch(const record_options& opt, const std::string& what, std::size_t k) {
  auto path = (std::filesystem::path{opt.dir} / (what + "-" + std::to_string(k))).string();
  discard(path);
  return path;
}

void discard(const std::string& path) {
  std::error_code ec;
  std::filesystem::remove_all(path, ec);
}

double anon_rss_mib() {
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (!f)
    return 0;
  unsigned long size = 0, resident = 0, shared = 0;
  int got = std::fscanf(f, "%lu %lu %lu", &size, &resident, &shared);
  std::fclose(f);
  if (got != 3)
    return 0;
  return static_cast<double>(resident - shared) * static_cast<double>(sysconf(_SC_PAGESIZE))
         / (1024.0 * 1024.0);
}

namespace {

rusage usage_now() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return ru;
}

double cpu_seconds(const rusage& ru) {
  auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec / 1e6; };
  return seconds(ru.ru_utime) + seconds(ru.ru_stime);
}

} // namespace

usage_meter::usage_meter() {
  auto ru = usage_now();
  cpu_ = cpu_seconds(ru);
  switches_ = ru.ru_nvcsw + ru.ru_nivcsw;
}

void usage_meter::add(writer_row& r, clock::duration wall, std::size_t n) const {
  auto ru = usage_now();
  r.cpu_percent.push_back((cpu_seconds(ru) - cpu_) / std::chrono::duration<double>(wall).count()
                          * 100);
  r.switches.push_back(static_cast<double>(ru.ru_nvcsw + ru.ru_nivcsw - switches_)
                       / static_cast<double>(n));
}

void usage_meter::drop_warm_up(writer_row& r) {
  if (!r.cpu_percent.empty())
    r.cpu_percent.erase(r.cpu_percent.begin());
  if (!r.switches.empty())
    r.switches.erase(r.switches.begin());
}

} // namespace bench
