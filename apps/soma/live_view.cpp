#include "live_view.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>

#include "health.hpp"

#include "soma/store/keys.hpp"

namespace soma::cli {

namespace {

constexpr std::size_t node_forwards = 100; // nodes --last, read on every redraw

std::optional<double> number(std::string_view t) {
  double x = 0;
  auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), x);
  if (t.empty() || ec != std::errc{} || end != t.data() + t.size())
    return std::nullopt;
  return x;
}

std::string micros(double us) {
  char buf[32];
  if (us < 10'000)
    std::snprintf(buf, sizeof buf, "%.1f µs", us);
  else if (us < 10'000'000)
    std::snprintf(buf, sizeof buf, "%.1f ms", us / 1e3);
  else
    std::snprintf(buf, sizeof buf, "%.2f s", us / 1e6);
  return buf;
}

// Columns a line takes: UTF-8 continuation bytes take none.
std::size_t columns(const std::string& s) {
  return static_cast<std::size_t>(std::count_if(
    s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

// The values as block characters, one a column; more values than columns
// are averaged a column at a time.
std::string sparkline(const std::vector<double>& xs, std::size_t width) {
  static constexpr const char* blocks[] = {"▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};
  if (xs.empty() || width == 0)
    return "";
  std::vector<double> cols;
  auto n = std::min(width, xs.size());
  for (std::size_t c = 0; c < n; ++c) {
    auto from = c * xs.size() / n, to = (c + 1) * xs.size() / n;
    double sum = 0;
    for (auto i = from; i < to; ++i)
      sum += xs[i];
    cols.push_back(sum / static_cast<double>(to - from));
  }
  auto [lo, hi] = std::minmax_element(cols.begin(), cols.end());
  std::string out;
  for (double v : cols) {
    auto level = *hi > *lo ? static_cast<int>((v - *lo) / (*hi - *lo) * 7.999) : 3;
    out += blocks[std::clamp(level, 0, 7)];
  }
  return out;
}

} // namespace

view read_view(const store& s, const std::string& run, const std::string& fact,
               std::size_t points) {
  view v{run, fact};
  std::vector<record> rows;
  try {
    rows = forwards(s, run);
  } catch (const no_run_error&) {
    return v; // not recorded yet: the view waits for it (damage is an error)
  }
  v.found = true;
  v.forwards = rows.size();
  auto key = fact.find('.') == std::string::npos ? fact + ".value" : fact;
  std::vector<std::pair<std::uint64_t, double>> told;
  for (auto& r : rows) {
    (r.state == outcome::ok ? v.ok : r.state == outcome::broke ? v.broke : v.open) += 1;
    for (auto& f : r.summary)
      if (f.key == key)
        if (auto x = number(f.value))
          told.emplace_back(r.forward, *x);
  }
  if (told.empty() && !rows.empty()) {
    // Not summarised: read the last forwards' facts, a fetch each.
    auto dot = key.find('.');
    auto name = key.substr(0, dot), field = key.substr(dot + 1);
    auto from = rows.size() > points ? rows.size() - points : 0;
    for (auto i = from; i < rows.size(); ++i)
      for (auto& f : facts(s, run, rows[i].forward))
        if (f.name == name)
          if (auto x = number(f[field]))
            told.emplace_back(rows[i].forward, *x);
  }
  v.told = told.size();
  auto from = told.size() > points ? told.size() - points : 0;
  for (auto i = from; i < told.size(); ++i)
    v.values.push_back(told[i].second);
  if (!rows.empty()) {
    v.slowest = nodes(s, run, node_forwards);
    std::stable_sort(v.slowest.begin(), v.slowest.end(),
                     [](const node_row& a, const node_row& b) { return a.mean_us > b.mean_us; });
    if (v.slowest.size() > 5)
      v.slowest.resize(5);
  }
  return v;
}

std::vector<std::string> opinion_lines(const store& s, const std::string& run) {
  std::vector<std::string> out;
  // An opinion is judged over the whole store: damage elsewhere (another
  // run, a machine's reading) says so here, and the view of this run goes on.
  try {
    for (auto& op : firing_about(s, run))
      out.push_back(op.rule + " " + op.subject + ": " + op.measure + " "
                    + health::number(op.value) + " over " + health::number(op.threshold));
  } catch (const store_error& e) {
    std::string why = e.what();
    out.push_back(why.find("damaged") != std::string::npos
                    ? "cannot be judged: the store is damaged (`soma check` lists where)"
                    : "cannot be judged: " + why);
  }
  return out;
}

std::vector<std::string> render(const view& v, std::size_t width) {
  std::vector<std::string> lines;
  char buf[256];
  lines.push_back("soma live: run " + v.run + "   (q quits)");
  if (!v.found) {
    lines.push_back("waiting for run '" + v.run + "' to be recorded...");
  } else {
    std::snprintf(buf, sizeof buf, "forwards %llu   ok %llu   broke %llu   open %llu",
                  static_cast<unsigned long long>(v.forwards), static_cast<unsigned long long>(v.ok),
                  static_cast<unsigned long long>(v.broke), static_cast<unsigned long long>(v.open));
    lines.push_back(buf);
    // Opinions in a line of their own, said to be opinions: the counts above
    // are the record, this is the health rules' judgement of it.
    std::string judged = "opinions (health rules, firing): ";
    if (v.opinions.empty())
      judged += "none";
    for (std::size_t i = 0; i < v.opinions.size(); ++i)
      judged += (i ? "; " : "") + v.opinions[i];
    lines.push_back(judged);
    if (v.values.empty()) {
      lines.push_back(v.fact + ": not told yet");
      lines.push_back("");
    } else {
      auto [lo, hi] = std::minmax_element(v.values.begin(), v.values.end());
      std::snprintf(buf, sizeof buf, "%s   last %.6g   (told by %llu forwards; last %zu: %.4g to %.4g)",
                    v.fact.c_str(), v.values.back(), static_cast<unsigned long long>(v.told),
                    v.values.size(), *lo, *hi);
      lines.push_back(buf);
      lines.push_back(sparkline(v.values, width > 2 ? width - 2 : width));
    }
    lines.push_back("");
    lines.push_back("slowest nodes (last 100 forwards)      mean       ran  failed");
    for (auto& n : v.slowest) {
      std::snprintf(buf, sizeof buf, "  %-32.32s %12s %8llu %7llu", n.node.c_str(),
                    micros(n.mean_us).c_str(), static_cast<unsigned long long>(n.ran),
                    static_cast<unsigned long long>(n.failed));
      lines.push_back(buf);
    }
  }
  for (auto& l : lines)
    while (columns(l) > width && !l.empty()) { // a whole character at a time
      while (!l.empty() && (static_cast<unsigned char>(l.back()) & 0xC0) == 0x80)
        l.pop_back();
      if (!l.empty())
        l.pop_back();
    }
  return lines;
}

} // namespace soma::cli
