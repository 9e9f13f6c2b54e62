#include "soma/store/critical.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>

#include "soma/store/tails.hpp"
#include "soma/vocabulary.hpp"

namespace soma {

namespace word = vocabulary;

namespace {

constexpr std::string_view here = "here";

// Stamps are whole microseconds, each cut down on its own: an activity may
// seem to end this much after the next one began, and still be before it.
constexpr std::int64_t touching_us = 20;

// The most a duration or a clock's difference may be here, about 12.7
// days: what a worker said is held to it, so that no sum of a few of them
// overflows whatever a peer wrote.
constexpr std::int64_t most_us = std::int64_t{1} << 40;

// A field's number, within ±most_us; 0 when it has none (a fact of an older
// engine).
std::int64_t micros(const fact& f, std::string_view key) {
  return std::clamp<std::int64_t>(f[key].integer_or(0), -most_us, most_us);
}

bool node_fact(const fact& f) {
  return f.name == word::ran || f.name == word::failed || f.name == word::recalled
         || f.name == word::kept;
}

segment_kind kind_of(const fact& f) {
  return f.name == word::recalled ? segment_kind::recall
         : f.name == word::kept   ? segment_kind::keep
                                  : segment_kind::work;
}

// A trip's stamps on both clocks, when its worker sent them: `apart`, the
// worker's clock when it took the trip less the client's when it sent it
// (T2 - T1); how long the worker held it; its round trip (T4 - T1).
struct stamps {
  std::int64_t apart = 0, held = 0, took = 0;
};

// A trip's stamps, as differences from its sending: none without them, or
// when the two clocks are further apart than most_us (no offset estimated
// from such a trip could be trusted, nor added without overflow).
std::optional<stamps> stamps_of(const fact& left) {
  if (!left.has("taken_us") || !left.has("sent_us"))
    return std::nullopt;
  std::int64_t apart = 0;
  if (__builtin_sub_overflow(left["taken_us"].integer_or(0), left["sent_us"].integer_or(0), &apart)
      || apart < -most_us || apart > most_us)
    return std::nullopt;
  return stamps{apart, std::max<std::int64_t>(0, micros(left, "held_us")),
                std::max<std::int64_t>(0, micros(left, "took_us"))};
}

// NTP's offset of one trip (worker less client) and its round trip outside
// the worker (twice the bound), in µs.
std::pair<std::int64_t, std::int64_t> offset_of(const stamps& s) {
  auto twice = 2 * s.apart + s.held - s.took; // (T2 - T1) + (T3 - T4)
  auto outside = std::max<std::int64_t>(0, s.took - s.held);
  return {twice >= 0 ? twice / 2 : -((-twice + 1) / 2), outside};
}

// One thing that happened in a forward on the client's timeline: a node's
// fact here, or a trip and everything in it. `parts` cover begin..end.
struct activity {
  std::int64_t begin = 0, end = 0;
  std::vector<segment> parts;
  bool trip = false;
};

segment part(segment_kind k, std::string_view host, std::string node, std::int64_t from,
             std::int64_t to, std::optional<std::size_t> fact) {
  return {k, std::string{host}, std::move(node), from, std::max<std::int64_t>(0, to - from), fact};
}

// Where a trip's value reached the worker and how long the worker held it,
// from the trip's start, by the client's clock.
std::pair<std::int64_t, std::int64_t> arrival(const fact& left, std::int64_t extent,
                                              const clock_estimate* clock) {
  auto took = std::max<std::int64_t>(0, micros(left, "took_us"));
  auto s = stamps_of(left);
  auto held = s ? s->held : extent;
  std::int64_t out = 0;
  if (s && clock)
    out = s->apart - clock->offset_us;
  else // no clocks to go by: the two ways taken as equal
    out = (took - held) / 2;
  held = std::clamp<std::int64_t>(held, 0, took);
  out = std::clamp<std::int64_t>(out, 0, took - held);
  return {out, held};
}

// The trip `left` (fact `at`) with the worker facts `inside` it, placed.
activity trip_of(const std::vector<fact>& facts, std::size_t at, std::vector<std::size_t> inside,
                 const std::map<std::string, clock_estimate>& clocks) {
  auto& left = facts[at];
  auto host = std::string{left["host"].text()};
  activity a;
  a.trip = true;
  a.begin = micros(left, "began_us");
  a.end = a.begin + std::max<std::int64_t>(0, micros(left, "took_us"));
  std::int64_t extent = 0;
  for (auto i : inside)
    extent = std::max(extent, micros(facts[i], "began_us") + micros(facts[i], "took_us"));
  auto found = clocks.find(host);
  auto* clock = found == clocks.end() ? nullptr : &found->second;
  auto [out, held] = arrival(left, extent, clock);
  auto wire = clock ? std::min(out, clock->wire_out_us) : out;
  auto arrive = a.begin + out, leave = arrive + held;
  a.parts.push_back(part(segment_kind::wire_out, host, {}, a.begin, a.begin + wire, at));
  if (wire < out)
    a.parts.push_back(part(segment_kind::queue, host, {}, a.begin + wire, arrive, at));
  std::sort(inside.begin(), inside.end(), [&](std::size_t x, std::size_t y) {
    return micros(facts[x], "began_us") < micros(facts[y], "began_us");
  });
  auto cursor = arrive;
  for (auto i : inside) {
    auto from = std::clamp(arrive + micros(facts[i], "began_us"), cursor, leave);
    auto to = std::clamp(from + std::max<std::int64_t>(0, micros(facts[i], "took_us")), from, leave);
    if (from > cursor)
      a.parts.push_back(part(segment_kind::queue, host, {}, cursor, from, at));
    a.parts.push_back(part(kind_of(facts[i]), host, std::string{facts[i]["node"].text()}, from, to, i));
    cursor = to;
  }
  if (cursor < leave)
    a.parts.push_back(part(segment_kind::queue, host, {}, cursor, leave, at));
  a.parts.push_back(part(segment_kind::wire_back, host, {}, leave, a.end, at));
  std::erase_if(a.parts, [](const segment& s) { return s.took_us == 0 && s.kind != segment_kind::work; });
  return a;
}

// Every activity of a forward, in the order its facts came.
std::vector<activity> activities(const std::vector<fact>& facts,
                                 const std::map<std::string, clock_estimate>& clocks) {
  std::vector<activity> out;
  std::map<std::string, std::vector<std::size_t>, std::less<>> waiting; // worker facts by host
  for (std::size_t i = 0; i < facts.size(); ++i) {
    auto& f = facts[i];
    if (node_fact(f) && f.has("host")) {
      waiting[std::string{f["host"].text()}].push_back(i);
    } else if (node_fact(f)) {
      auto b = micros(f, "began_us"), t = std::max<std::int64_t>(0, micros(f, "took_us"));
      out.push_back({b, b + t, {part(kind_of(f), here, std::string{f["node"].text()}, b, b + t, i)}});
    } else if (f.name == word::left) {
      auto host = waiting.find(f["host"].text());
      std::vector<std::size_t> inside;
      if (host != waiting.end())
        inside = std::exchange(host->second, {});
      out.push_back(trip_of(facts, i, std::move(inside), clocks));
    }
  }
  return out;
}

// The critical path of a forward of `took` µs over `acts`, walked back from
// its end, in time order; `used` gets each activity on it with the time it
// gave the path.
std::vector<segment> walk(const std::vector<activity>& acts, std::int64_t took,
                          std::vector<std::pair<std::size_t, std::int64_t>>* used = nullptr) {
  std::vector<segment> back;
  std::vector<bool> done(acts.size());
  auto cur = took;
  // At the forward's end, what reaches past it (facts that disagree with
  // the record) is cut there; further back, what ends after the point
  // reached ran beside the path, not on it.
  bool at_end = true;
  while (cur > 0) {
    std::optional<std::size_t> best;
    for (std::size_t i = 0; i < acts.size(); ++i) {
      auto& a = acts[i];
      if (done[i] || a.end <= 0 || a.begin >= cur || (!at_end && a.end > cur + touching_us))
        continue;
      if (!best || std::tie(a.end, acts[*best].begin) > std::tie(acts[*best].end, a.begin))
        best = i;
    }
    if (!best) {
      back.push_back(part(segment_kind::wait, here, {}, 0, cur, std::nullopt));
      break;
    }
    auto& a = acts[*best];
    done[*best] = true;
    at_end = false;
    auto end = std::min(a.end, cur), lo = std::max<std::int64_t>(a.begin, 0);
    if (end < cur)
      back.push_back(part(segment_kind::wait, here, {}, end, cur, std::nullopt));
    for (auto p = a.parts.rbegin(); p != a.parts.rend(); ++p) {
      auto from = std::max(p->began_us, lo), to = std::min(p->began_us + p->took_us, end);
      if (to > from) {
        auto s = *p;
        s.began_us = from;
        s.took_us = to - from;
        back.push_back(std::move(s));
      }
    }
    if (used)
      used->emplace_back(*best, end - lo);
    cur = lo;
  }
  std::reverse(back.begin(), back.end());
  return back;
}

} // namespace

std::string_view to_string(segment_kind k) noexcept {
  switch (k) {
    case segment_kind::work: return "work";
    case segment_kind::wire_out: return "wire out";
    case segment_kind::queue: return "queue";
    case segment_kind::wire_back: return "wire back";
    case segment_kind::recall: return "recall";
    case segment_kind::keep: return "keep";
    case segment_kind::wait: return "wait";
  }
  return "wait";
}

std::map<std::string, clock_estimate> estimate_clocks(const std::vector<record>& records,
                                                      const std::vector<std::vector<fact>>& facts) {
  std::map<std::string, clock_estimate> out;
  std::map<std::string, std::int64_t> outside; // the best trip's, by host
  auto each_trip = [&](auto&& f) {
    for (std::size_t k = 0; k < facts.size(); ++k)
      for (auto& x : facts[k])
        if (x.name == word::left)
          if (auto s = stamps_of(x))
            f(std::string{x["host"].text()}, *s, k < records.size() ? records[k].forward : 0);
  };
  each_trip([&](const std::string& host, const stamps& s, std::uint64_t forward) {
    auto [offset, round] = offset_of(s);
    auto& c = out[host];
    auto seen = outside.find(host);
    if (seen == outside.end() || round < seen->second) {
      outside[host] = round;
      c.host = host;
      c.offset_us = offset;
      c.bound_us = std::max<std::int64_t>(1, (round + 1) / 2); // never "exactly": stamps are whole µs
      c.forward = forward;
    }
    ++c.trips;
  });
  for (auto& [host, c] : out)
    c.wire_out_us = std::numeric_limits<std::int64_t>::max();
  each_trip([&](const std::string& host, const stamps& s, std::uint64_t) {
    auto& c = out[host];
    auto way = std::clamp<std::int64_t>(s.apart - c.offset_us, 0, s.took - std::min(s.held, s.took));
    c.wire_out_us = std::min(c.wire_out_us, way);
  });
  return out;
}

timeline timeline_of(const record& r, const std::vector<fact>& facts,
                     const std::map<std::string, clock_estimate>& clocks) {
  auto acts = activities(facts, clocks);
  timeline out;
  for (auto& a : acts)
    out.all.insert(out.all.end(), a.parts.begin(), a.parts.end());
  out.path = walk(acts, r.took_us);
  return out;
}

namespace {

// The sums critical() adds up over forwards.
struct tally {
  std::map<std::pair<std::string, segment_kind>, std::int64_t> kinds;
  std::map<std::pair<std::string, std::string>, critical_report::on_path> nodes;
  // Every node's work, wherever it ran: (node, host) -> (count, µs).
  std::map<std::pair<std::string, std::string>, std::pair<std::size_t, std::int64_t>> work;
};

void add_forward(tally& t, const std::vector<segment>& path, const std::vector<activity>& acts) {
  std::map<std::pair<std::string, std::string>, std::int64_t> mine;
  for (auto& s : path) {
    t.kinds[{s.host, s.kind}] += s.took_us;
    if (s.kind == segment_kind::work)
      mine[{s.node, s.host}] += s.took_us;
  }
  for (auto& [key, us] : mine) {
    auto& n = t.nodes[key];
    n.node = key.first;
    n.host = key.second;
    ++n.forwards;
    n.took_us += us;
  }
  for (auto& a : acts)
    for (auto& s : a.parts)
      if (s.kind == segment_kind::work) {
        auto& w = t.work[{s.node, s.host}];
        ++w.first;
        w.second += s.took_us;
      }
}

// The forwards' took_us had `node` (its work at `host`) run here, taking
// `here_us`: its trip's time on the path given back (or only its own work,
// when its slice had other nodes), its time here added.
// `used`: the activities on the forward's path, and the time each gave it
// (walk's). `trip_us` gets the trip's whole time, when the node rode one.
double estimate_without(const std::vector<activity>& acts,
                        const std::vector<std::pair<std::size_t, std::int64_t>>& used,
                        std::int64_t took, const std::string& node, const std::string& host,
                        double here_us, double& trip_us) {
  for (std::size_t i = 0; i < acts.size(); ++i) {
    auto& a = acts[i];
    if (!a.trip || a.parts.empty() || a.parts.front().host != host)
      continue;
    std::size_t members = 0;
    std::int64_t mine = 0;
    for (auto& s : a.parts)
      if (s.kind == segment_kind::work) {
        ++members;
        if (s.node == node)
          mine += s.took_us;
      }
    if (mine == 0 && std::none_of(a.parts.begin(), a.parts.end(),
                                  [&](const segment& s) { return s.node == node; }))
      continue;
    trip_us = static_cast<double>(a.end - a.begin);
    auto on = std::find_if(used.begin(), used.end(), [&](auto& u) { return u.first == i; });
    if (on == used.end())
      return static_cast<double>(took); // off the path: the path stays
    auto given_back = members == 1 ? on->second : std::min(mine, on->second);
    return static_cast<double>(took - given_back) + here_us;
  }
  return static_cast<double>(took);
}

std::optional<critical_report::what_if> slowest_of(const tally& t) {
  std::optional<critical_report::what_if> out;
  for (auto& [key, w] : t.work) {
    if (key.second == here || w.first == 0)
      continue;
    auto mean = static_cast<double>(w.second) / static_cast<double>(w.first);
    if (!out || mean > out->remote_mean_us)
      out = critical_report::what_if{key.first, key.second, w.first, mean};
  }
  if (!out)
    return out;
  auto local = t.work.find({out->node, std::string{here}});
  if (local != t.work.end() && local->second.first > 0) {
    out->here = local->second.first;
    out->here_mean_us = static_cast<double>(local->second.second)
                        / static_cast<double>(local->second.first);
  }
  return out;
}

} // namespace

critical_report critical(const store& s, std::string_view run, const critical_options& o) {
  critical_report out;
  out.run = std::string{run};
  auto tail = tails(s, {.last = o.last, .facts = o.last, .run = std::string{run}});
  if (tail.empty() || tail.front().records.empty())
    return out;
  auto& records = tail.front().records;
  auto& facts = tail.front().facts;
  out.clocks = estimate_clocks(records, facts);
  out.forwards = records.size();
  out.first = records.front().forward;
  out.last = records.back().forward;
  tally t;
  // Each forward's activities, and those on its path, for the what-if.
  std::vector<std::vector<activity>> all;
  std::vector<std::vector<std::pair<std::size_t, std::int64_t>>> used(records.size());
  all.reserve(records.size());
  for (std::size_t i = 0; i < records.size(); ++i) {
    auto acts = activities(facts[i], out.clocks);
    auto path = walk(acts, records[i].took_us, &used[i]);
    // How far its facts reach past its record's took_us (beyond the whole
    // microseconds each stamp was cut to): the path cuts them there.
    std::int64_t end = 0;
    for (auto& a : acts)
      end = std::max(end, a.end);
    if (records[i].took_us > 0 && end > records[i].took_us + touching_us)
      out.worst_gap = std::max(out.worst_gap, static_cast<double>(end - records[i].took_us)
                                                / static_cast<double>(records[i].took_us));
    out.took_us += records[i].took_us;
    add_forward(t, path, acts);
    all.push_back(std::move(acts));
  }
  for (auto& [key, us] : t.kinds)
    out.shares.push_back({key.first, key.second, us,
                          out.took_us > 0 ? static_cast<double>(us) / static_cast<double>(out.took_us) : 0});
  std::stable_sort(out.shares.begin(), out.shares.end(),
                   [](auto& a, auto& b) { return a.took_us > b.took_us; });
  for (auto& [key, n] : t.nodes)
    out.nodes.push_back(n);
  std::stable_sort(out.nodes.begin(), out.nodes.end(), [](auto& a, auto& b) {
    return std::tie(a.forwards, a.took_us) > std::tie(b.forwards, b.took_us);
  });
  out.slowest = slowest_of(t);
  if (out.slowest) {
    auto& w = *out.slowest;
    double took = 0, estimate = 0, trips = 0, trip_count = 0;
    for (std::size_t i = 0; i < records.size(); ++i) {
      double trip = -1;
      took += static_cast<double>(records[i].took_us);
      estimate += estimate_without(all[i], used[i], records[i].took_us, w.node, w.host,
                                   w.here_mean_us, trip);
      if (trip >= 0) {
        trips += trip;
        ++trip_count;
      }
    }
    auto n = static_cast<double>(records.size());
    w.took_mean_us = took / n;
    w.estimate_mean_us = w.here > 0 ? estimate / n : 0;
    w.trip_mean_us = trip_count > 0 ? trips / trip_count : 0;
  }
  return out;
}

} // namespace soma
