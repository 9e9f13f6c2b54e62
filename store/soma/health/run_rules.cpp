// The rules about runs, judged from their last forwards: not_worth_sending
// (per host), slow_node (per node), broke_forwards, stalled_run, non_finite.

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <tuple>

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
  health::changes_with changes(const settings&) const override { return changes_with::its_run; }
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
           "names), when there are `runs` of them at least, and at least `at_least_us`";
  }
  std::vector<setting> defaults() const override {
    return {{"over", 3, "times its median over earlier runs"},
            {"for", 0, "seconds"},
            {"enabled", 1, ""},
            {"last", 100, "forwards of each run it adds up"},
            {"runs", 3, "earlier runs of the same graph needed to judge at all"},
            {"at_least_us", 1000, "us: a node whose mean is under it is never slow (a ratio of "
                                  "sub-millisecond timings is noise)"}};
  }
  health::needs needs(const settings& s) const override {
    return {count_of(s, "last"), count_of(s, "last"), false};
  }
  // Not its_run: a node is held against earlier runs of the same graph.
  health::changes_with changes(const settings&) const override { return changes_with::writes; }
  void judge(const evidence& e, const settings& s, std::vector<opinion>& out) const override {
    auto last = count_of(s, "last");
    auto* m = memo_of(e);
    std::vector<summed> owned; // a judgement's; a replay's are in its memo
    auto all = summed_of(e, last, m, owned);
    medians scratch;
    for (auto* x : all)
      for (auto& [node, median] : *medians_of(m, all, *x, scratch)) {
        auto it = x->mean_us.find(node);
        if (it == x->mean_us.end() || median.second < static_cast<std::size_t>(s["runs"]))
          continue;
        auto mean = it->second;
        auto floor = s["at_least_us"];
        if (median.first <= 0 || !(mean > s.over() * median.first) || mean < floor)
          continue;
        // Since it was over both: the ratio and the floor.
        auto since = since_of(m, *x, last, node,
                              std::max(s.over() * median.first, std::nextafter(floor, 0.0)));
        if (!since)
          continue;
        auto o = about_run(name(), *x->tail, "node", "node " + node + " of run " + x->tail->run);
        o.measure = "mean_us";
        o.value = mean;
        o.threshold = s.over() * median.first;
        o.threshold_is = number(s.over()) + " x its median " + number(median.first) + " us over "
                         + std::to_string(median.second) + " earlier runs"
                         + (floor > o.threshold ? ", and at least " + number(floor) + " us" : "");
        o.since_us = *since;
        hold(out, std::move(o), s, e.now_us);
      }
  }

private:
  // Each node's median mean_us over earlier runs of a graph, and how many.
  using medians = std::map<std::string, std::pair<double, std::size_t>>;

  struct summed {
    const run_tail* tail;
    std::uint64_t stamp; // evidence::tail_stamps', 0 in a judgement
    std::string graph;
    std::size_t graph_id; // the same for the same graph, in a replay
    std::map<std::string, double> mean_us;
  };
  // What a replay keeps between its steps (evidence::kept): each run's sums
  // and each opinion's since until the run's tail changes; each run's
  // medians until its graph or an earlier run of that graph changes (their
  // stamps only grow, so their count and newest stamp say when).
  struct memo {
    std::map<std::string, summed, std::less<>> sums;
    std::map<std::string, std::size_t, std::less<>> graphs;
    std::map<std::tuple<std::string, std::size_t, std::size_t, std::uint64_t>, slow_node_rule::medians>
      held_against;
    std::map<std::tuple<std::string, std::string, double>,
             std::pair<std::uint64_t, std::optional<std::int64_t>>> since;
  };
  memo* memo_of(const evidence& e) const {
    if (e.tail_stamps.size() != e.runs.size() || e.runs.empty())
      return nullptr;
    auto& kept = e.kept[name()];
    if (!kept)
      kept = std::make_shared<memo>();
    return static_cast<memo*>(kept.get());
  }

  // Each run's graph and its nodes' mean_us over its last `last` forwards.
  static std::vector<const summed*> summed_of(const evidence& e, std::size_t last, memo* m,
                                              std::vector<summed>& owned) {
    owned.reserve(e.runs.size());
    std::vector<const summed*> all;
    for (std::size_t k = 0; k < e.runs.size(); ++k) {
      auto& t = e.runs[k];
      auto stamp = m ? e.tail_stamps[k] : 0;
      if (m)
        if (auto it = m->sums.find(t.run); it != m->sums.end() && it->second.stamp == stamp) {
          it->second.tail = &t;
          all.push_back(&it->second);
          continue;
        }
      detail::node_tally tally;
      for (auto i = start_of(t, last); i < t.records.size(); ++i)
        tally.add(*t.facts_of(i));
      auto rows = tally.rows();
      summed x{&t, stamp, graph_of(rows), 0, {}};
      for (auto& r : rows)
        if (r.ran + r.failed > 0)
          x.mean_us[r.node] = r.mean_us;
      if (m) {
        x.graph_id = m->graphs.try_emplace(x.graph, m->graphs.size()).first->second;
        all.push_back(&(m->sums[t.run] = std::move(x)));
      } else
        all.push_back(&owned.emplace_back(std::move(x)));
    }
    return all;
  }

  // The medians `x` is held against: over the runs of its graph that began
  // before it; in `scratch` (a judgement's), else kept in the memo.
  static const medians* medians_of(memo* m, const std::vector<const summed*>& all,
                                   const summed& x, medians& scratch) {
    auto earlier = [&](const summed& y) {
      return (m ? y.graph_id == x.graph_id : y.graph == x.graph) && y.tail->first < x.tail->first;
    };
    auto* out = &scratch;
    if (m) {
      if (m->held_against.size() > 10'000)
        m->held_against.clear(); // runs after one that moves get new keys at every step
      std::size_t count = 0;
      std::uint64_t newest = 0;
      for (auto* y : all)
        if (earlier(*y))
          ++count, newest = std::max(newest, y->stamp);
      auto [it, fresh] = m->held_against.try_emplace({x.tail->run, x.graph_id, count, newest});
      if (!fresh)
        return &it->second;
      out = &it->second;
    }
    std::map<std::string, std::vector<double>> before;
    for (auto* y : all)
      if (earlier(*y))
        for (auto& [node, mean] : y->mean_us)
          before[node].push_back(mean);
    out->clear();
    for (auto& [node, means] : before) {
      auto mid = means.begin() + static_cast<std::ptrdiff_t>(means.size() / 2);
      std::nth_element(means.begin(), mid, means.end());
      double median = *mid;
      if (means.size() % 2 == 0)
        median = (median + *std::max_element(means.begin(), mid)) / 2;
      (*out)[node] = {median, means.size()};
    }
    return out;
  }

  // Since which forward the node's mean so far (over the window) has stayed
  // over `bound`.
  static std::optional<std::int64_t> since_of(memo* m, const summed& x, std::size_t last,
                                              const std::string& node, double bound) {
    auto& t = *x.tail;
    std::tuple<std::string, std::string, double> key{t.run, node, bound};
    if (m)
      if (auto it = m->since.find(key); it != m->since.end() && it->second.first == x.stamp)
        return it->second.second;
    detail::node_tally tally;
    holding held;
    for (auto i = start_of(t, last); i < t.records.size(); ++i) {
      tally.add(*t.facts_of(i));
      for (auto& r : tally.rows())
        if (r.node == node)
          held.at(r.ran + r.failed > 0 && r.mean_us > bound, t.records[i].when_s());
    }
    if (m) {
      if (m->since.size() > 10'000)
        m->since.clear(); // a bound that moves at every step: keep memory bounded
      m->since[key] = {x.stamp, held.since()};
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
  health::changes_with changes(const settings&) const override { return changes_with::its_run; }
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
      auto behind = static_cast<double>(sub_us(now_s, rs.back().when_s()));
      if (behind > s["forget"])
        continue; // abandoned (before the median: a replay asks this of every run at every step)
      std::vector<std::int64_t> gaps;
      for (auto i = from + 1; i < rs.size(); ++i)
        gaps.push_back(std::max<std::int64_t>(0, rs[i].when_s() - rs[i - 1].when_s()));
      std::nth_element(gaps.begin(), gaps.begin() + static_cast<std::ptrdiff_t>(gaps.size() / 2),
                       gaps.end());
      auto median = std::max<std::int64_t>(1, gaps[gaps.size() / 2]);
      auto threshold = s.over() * static_cast<double>(median);
      if (!(behind > threshold))
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
  health::changes_with changes(const settings&) const override { return changes_with::its_run; }
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
