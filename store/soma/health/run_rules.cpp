// The rules about runs, judged from their last forwards: not_worth_sending
// (per host), slow_node (per node), broke_forwards, stalled_run, non_finite.

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>

#include "soma/health/rules.hpp"
#include "soma/store/hosts.hpp"
#include "soma/store/readers.hpp"

namespace soma::health {

namespace {

std::size_t count_of(const settings& s, std::string_view name) {
  auto x = s[name];
  return x < 1 ? 1 : static_cast<std::size_t>(x);
}

// The last `n` indices of a tail (all of it when shorter).
std::size_t start_of(const run_tail& t, std::size_t n) {
  return t.records.size() > n ? t.records.size() - n : 0;
}

opinion about_run(const std::string& rule, const run_tail& t, std::string kind,
                  std::string subject) {
  opinion o;
  o.rule = rule;
  o.kind = std::move(kind);
  o.subject = std::move(subject);
  o.run = t.run;
  return o;
}

// Follows a condition forward by forward: since when it has held without a
// break up to the last forward seen.
class holding {
public:
  void at(bool holds, std::int64_t when_s) {
    if (!holds)
      holds_ = false;
    else if (!holds_) {
      holds_ = true;
      since_ = us_of_s(when_s);
    }
  }
  [[nodiscard]] std::optional<std::int64_t> since() const noexcept {
    return holds_ ? std::optional{since_} : std::nullopt;
  }

private:
  bool holds_ = false;
  std::int64_t since_ = 0; // (an optional here trips GCC 12's -Wmaybe-uninitialized)
};

class not_worth_sending_rule : public rule {
public:
  std::string name() const override { return "not_worth_sending"; }
  std::string looks_at() const override { return "fact blobs"; }
  std::string condition() const override {
    return "a host's waiting_us (its round trips less the work done there: the wire, the queue, "
           "the codec) is over `over` times its took_us, over the run's last `last` forwards, "
           "once it has had `trips` trips";
  }
  std::vector<setting> defaults() const override {
    return {{"over", 10, "times the host's took_us"},
            {"for", 0, "seconds"},
            {"enabled", 1, ""},
            {"last", 100, "forwards of the run it adds up"},
            {"trips", 10, "trips there before it is judged at all"}};
  }
  health::needs needs(const settings& s) const override {
    return {count_of(s, "last"), count_of(s, "last"), false};
  }
  void judge(const evidence& e, const settings& s, std::vector<opinion>& out) const override {
    auto trips = static_cast<std::uint64_t>(s["trips"]);
    for (auto& t : e.runs) {
      detail::host_tally tally;
      std::map<std::string, holding> held;
      std::vector<host_row> rows;
      for (auto i = start_of(t, count_of(s, "last")); i < t.records.size(); ++i) {
        tally.add(*t.facts_of(i));
        rows = tally.rows();
        for (auto& h : rows)
          if (h.host != "here")
            held[h.host].at(h.slices >= trips && ratio(h) > s.over(), t.records[i].when_s());
      }
      for (auto& h : rows) {
        auto it = held.find(h.host);
        if (it == held.end() || !it->second.since())
          continue;
        auto o = about_run(name(), t, "host", "host " + h.host + " of run " + t.run);
        o.measure = "waiting_us / took_us";
        o.value = ratio(h);
        o.threshold = s.over();
        o.threshold_is = "waiting " + number(static_cast<double>(h.waiting_us) / 1e3)
                         + " ms against work " + number(static_cast<double>(h.took_us) / 1e3)
                         + " ms over " + std::to_string(h.slices) + " trips";
        o.since_us = *it->second.since();
        hold(out, std::move(o), s, e.now_us);
      }
    }
  }

private:
  static double ratio(const host_row& h) {
    if (h.took_us <= 0)
      return h.waiting_us > 0 ? HUGE_VAL : 0;
    return static_cast<double>(h.waiting_us) / static_cast<double>(h.took_us);
  }
};

// The node names of a run's tail, sorted: what "the same graph" means here.
std::string graph_of(const std::vector<node_row>& rows) {
  std::vector<std::string> names;
  for (auto& r : rows)
    names.push_back(r.node);
  std::sort(names.begin(), names.end());
  std::string out;
  for (auto& n : names)
    out += n + '\n';
  return out;
}

class slow_node_rule : public rule {
public:
  std::string name() const override { return "slow_node"; }
  std::string looks_at() const override { return "fact blobs"; }
  std::string condition() const override {
    return "a node's mean_us over the run's last `last` forwards is over `over` times the median "
           "of its mean_us in earlier runs of the same graph (runs whose nodes have the same "
           "names), when there are `runs` of them at least";
  }
  std::vector<setting> defaults() const override {
    return {{"over", 3, "times its median over earlier runs"},
            {"for", 0, "seconds"},
            {"enabled", 1, ""},
            {"last", 100, "forwards of each run it adds up"},
            {"runs", 3, "earlier runs of the same graph needed to judge at all"}};
  }
  health::needs needs(const settings& s) const override {
    return {count_of(s, "last"), count_of(s, "last"), false};
  }
  void judge(const evidence& e, const settings& s, std::vector<opinion>& out) const override {
    auto last = count_of(s, "last");
    struct summed {
      const run_tail* tail;
      std::string graph;
      std::map<std::string, double> mean_us;
    };
    std::vector<summed> all;
    for (auto& t : e.runs) {
      detail::node_tally tally;
      for (auto i = start_of(t, last); i < t.records.size(); ++i)
        tally.add(*t.facts_of(i));
      auto rows = tally.rows();
      summed x{&t, graph_of(rows), {}};
      for (auto& r : rows)
        if (r.ran + r.failed > 0)
          x.mean_us[r.node] = r.mean_us;
      all.push_back(std::move(x));
    }
    for (auto& x : all) {
      std::map<std::string, std::vector<double>> before;
      for (auto& y : all)
        if (y.graph == x.graph && y.tail->first < x.tail->first)
          for (auto& [node, mean] : y.mean_us)
            before[node].push_back(mean);
      for (auto& [node, mean] : x.mean_us) {
        auto& earlier = before[node];
        if (earlier.size() < static_cast<std::size_t>(s["runs"]) || earlier.empty())
          continue;
        auto mid = earlier.begin() + static_cast<std::ptrdiff_t>(earlier.size() / 2);
        std::nth_element(earlier.begin(), mid, earlier.end());
        double median = *mid;
        if (earlier.size() % 2 == 0)
          median = (median + *std::max_element(earlier.begin(), mid)) / 2;
        if (median <= 0 || !(mean > s.over() * median))
          continue;
        auto since = since_of(*x.tail, last, node, s.over() * median);
        if (!since)
          continue;
        auto o = about_run(name(), *x.tail, "node", "node " + node + " of run " + x.tail->run);
        o.measure = "mean_us";
        o.value = mean;
        o.threshold = s.over() * median;
        o.threshold_is = number(s.over()) + " x its median " + number(median) + " us over "
                         + std::to_string(earlier.size()) + " earlier runs";
        o.since_us = *since;
        hold(out, std::move(o), s, e.now_us);
      }
    }
  }

private:
  // Since which forward the node's mean so far (over the window) has stayed
  // over `bound`.
  static std::optional<std::int64_t> since_of(const run_tail& t, std::size_t last,
                                              const std::string& node, double bound) {
    detail::node_tally tally;
    holding held;
    for (auto i = start_of(t, last); i < t.records.size(); ++i) {
      tally.add(*t.facts_of(i));
      for (auto& r : tally.rows())
        if (r.node == node)
          held.at(r.ran + r.failed > 0 && r.mean_us > bound, t.records[i].when_s());
    }
    return held.since();
  }
};

class broke_forwards_rule : public rule {
public:
  std::string name() const override { return "broke_forwards"; }
  std::string looks_at() const override { return "records"; }
  std::string condition() const override {
    return "more than `over` of the run's last `last` forwards broke";
  }
  std::vector<setting> defaults() const override {
    return {{"over", 0, "broke forwards"},
            {"for", 0, "seconds"},
            {"enabled", 1, ""},
            {"last", 100, "forwards it counts over"}};
  }
  health::needs needs(const settings& s) const override {
    return {2 * count_of(s, "last"), false, false}; // twice: to see since when
  }
  void judge(const evidence& e, const settings& s, std::vector<opinion>& out) const override {
    auto last = count_of(s, "last");
    for (auto& t : e.runs) {
      auto& rs = t.records;
      // broke[i]: broke forwards among the `last` ending at i.
      std::vector<std::uint64_t> broke(rs.size());
      std::uint64_t in_window = 0;
      for (std::size_t i = 0; i < rs.size(); ++i) {
        in_window += rs[i].state == outcome::broke;
        if (i >= last)
          in_window -= rs[i - last].state == outcome::broke;
        broke[i] = in_window;
      }
      // Since when it has held without a break: back from the last forward
      // while the window ending there held (over the whole tail, twice
      // `last`, so a condition older than the last `last` is seen too).
      auto holds = [&](std::size_t i) { return static_cast<double>(broke[i]) > s.over(); };
      if (rs.empty() || !holds(rs.size() - 1))
        continue;
      auto first = rs.size() - 1;
      while (first > 0 && holds(first - 1))
        --first;
      auto since = us_of_s(rs[first].when_s());
      auto o = about_run(name(), t, "run", "run " + t.run);
      o.measure = "broke of its last " + std::to_string(std::min(last, rs.size())) + " forwards";
      o.value = static_cast<double>(broke.back());
      o.threshold = s.over();
      o.since_us = since;
      hold(out, std::move(o), s, e.now_us);
    }
  }
};

class stalled_run_rule : public rule {
public:
  std::string name() const override { return "stalled_run"; }
  std::string looks_at() const override { return "records"; }
  std::string condition() const override {
    return "the run's last forward is more than `over` times its median interval between "
           "forwards (over its last `last`, 1 s at least: records keep whole seconds) behind the "
           "newest write of any writer; a run whose recorder closed has ended and is not judged, "
           "and one nobody closed that is more than `forget` seconds behind is taken as abandoned";
  }
  std::vector<setting> defaults() const override {
    return {{"over", 10, "times its median interval between forwards"},
            {"for", 0, "seconds"},
            {"enabled", 1, ""},
            {"last", 100, "forwards it takes the median interval over"},
            {"forget", 3600, "seconds behind after which a run nobody closed is abandoned, not stalled"}};
  }
  health::needs needs(const settings& s) const override {
    return {count_of(s, "last"), false, false};
  }
  void judge(const evidence& e, const settings& s, std::vector<opinion>& out) const override {
    auto now_s = e.now_us / 1'000'000;
    for (auto& t : e.runs) {
      auto& rs = t.records;
      auto from = start_of(t, count_of(s, "last"));
      if (t.ended_us && (!e.at_us || *t.ended_us <= *e.at_us))
        continue; // its recorder closed: ended, not stalled
      if (rs.size() - from < 2)
        continue; // one forward has no interval
      std::vector<std::int64_t> gaps;
      for (auto i = from + 1; i < rs.size(); ++i)
        gaps.push_back(std::max<std::int64_t>(0, rs[i].when_s() - rs[i - 1].when_s()));
      std::nth_element(gaps.begin(), gaps.begin() + static_cast<std::ptrdiff_t>(gaps.size() / 2),
                       gaps.end());
      auto median = std::max<std::int64_t>(1, gaps[gaps.size() / 2]);
      auto threshold = s.over() * static_cast<double>(median);
      auto behind = static_cast<double>(sub_us(now_s, rs.back().when_s()));
      if (!(behind > threshold) || behind > s["forget"])
        continue;
      auto o = about_run(name(), t, "run", "run " + t.run);
      o.measure = "s since its last forward";
      o.value = behind;
      o.threshold = threshold;
      o.threshold_is = number(s.over()) + " x its median interval " + std::to_string(median)
                       + " s";
      o.since_us = us_of_s(add_us(rs.back().when_s(), clamp_us(std::ceil(threshold))));
      hold(out, std::move(o), s, e.now_us);
    }
  }
};

bool finite_field(const field& f) {
  // A text that reads as a number ("nan" from an older soma) counts as that
  // number; any other text has nothing to be finite or not.
  auto x = read_number(f.value);
  return !x || std::isfinite(*x);
}

class non_finite_rule : public rule {
public:
  std::string name() const override { return "non_finite"; }
  std::string looks_at() const override { return "records"; }
  std::string condition() const override {
    return "a summarised value (a record's summary, such as loss.value) is not finite (nan, inf) "
           "in more than `over` of the run's forwards in a row, up to its last";
  }
  std::vector<setting> defaults() const override {
    return {{"over", 0, "forwards in a row"},
            {"for", 0, "seconds"},
            {"enabled", 1, ""},
            {"last", 100, "forwards it looks back over"}};
  }
  health::needs needs(const settings& s) const override {
    return {count_of(s, "last"), false, false};
  }
  void judge(const evidence& e, const settings& s, std::vector<opinion>& out) const override {
    for (auto& t : e.runs) {
      auto& rs = t.records;
      auto from = start_of(t, count_of(s, "last"));
      if (rs.empty())
        continue;
      for (auto& f : rs.back().summary) {
        if (finite_field(f))
          continue;
        auto first = rs.size() - 1;
        auto still = [&](const record& r) {
          for (auto& g : r.summary)
            if (g.key == f.key)
              return !finite_field(g);
          return false;
        };
        while (first > from && still(rs[first - 1]))
          --first;
        auto in_a_row = static_cast<double>(rs.size() - first);
        if (!(in_a_row > s.over()))
          continue;
        auto o = about_run(name(), t, "run", f.key + " of run " + t.run);
        o.measure = "forwards in a row with " + f.key + " " + f.value.str();
        o.value = in_a_row;
        o.threshold = s.over();
        o.since_us = us_of_s(rs[first].when_s());
        hold(out, std::move(o), s, e.now_us);
      }
    }
  }
};

} // namespace

std::unique_ptr<rule> not_worth_sending() { return std::make_unique<not_worth_sending_rule>(); }
std::unique_ptr<rule> slow_node() { return std::make_unique<slow_node_rule>(); }
std::unique_ptr<rule> broke_forwards() { return std::make_unique<broke_forwards_rule>(); }
std::unique_ptr<rule> stalled_run() { return std::make_unique<stalled_run_rule>(); }
std::unique_ptr<rule> non_finite() { return std::make_unique<non_finite_rule>(); }

} // namespace soma::health
