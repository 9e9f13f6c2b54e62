#include "soma/store/trace.hpp"

#include <algorithm>
#include <charconv>
#include <deque>
#include <limits>
#include <map>
#include <optional>
#include <stdexcept>
#include <tuple>
#include <type_traits>
#include <vector>

#include "soma/fact.hpp"
#include "soma/store/critical.hpp"
#include "soma/store/readers.hpp"
#include "soma/store/tails.hpp"
#include "soma/vocabulary.hpp"

namespace soma {

namespace {

namespace word = soma::vocabulary;

// The JSON string of `s`, escaped as soma::to_json escapes a fact's text
// (quotes, backslash, control characters as \u00XX, UTF-8 kept as it is and
// any other byte U+FFFD): one escaper for all of soma's JSON.
void append_string(std::string& out, std::string_view s) {
  auto json = to_json(fact{std::string{s}, {}}); // {"fact":"<s escaped>"}
  constexpr std::size_t open = sizeof("{\"fact\":") - 1;
  out.append(json, open, json.size() - open - 1);
}

// A field's number; 0 when it has none (a fact of an older engine).
std::int64_t micros(const fact& f, std::string_view key) {
  return f[key].integer_or(0);
}

// Writes event objects, one a line, and counts them.
struct writer {
  std::string& out;
  std::size_t& count;
  std::uint64_t pid;

  void open(std::string_view name, std::string_view ph, std::size_t tid) {
    if (!out.empty())
      out += ",\n";
    ++count;
    out += "{\"name\":";
    append_string(out, name);
    out += ",\"ph\":\"";
    out += ph;
    out += '"';
    put("pid", static_cast<std::int64_t>(pid));
    put("tid", static_cast<std::int64_t>(tid));
  }

  void put(std::string_view key, std::int64_t x) {
    out += ",\"";
    out += key;
    out += "\":";
    out += text(x);
  }

  void put(std::string_view key, std::string_view s) {
    out += ",\"";
    out += key;
    out += "\":";
    append_string(out, s);
  }

  // args: the fact's fields, as text.
  void args(const fact& f) {
    out += ",\"args\":{";
    for (std::size_t i = 0; i < f.fields.size(); ++i) {
      if (i > 0)
        out += ',';
      append_string(out, f.fields[i].key);
      out += ':';
      append_string(out, f.fields[i].value.str());
    }
    out += '}';
  }

  // A metadata event: {"name": name, ..., "args": {key: value}}.
  template <class Value>
  void meta(std::string_view name, std::size_t tid, std::string_view key, const Value& value) {
    open(name, "M", tid);
    out += ",\"args\":{";
    append_string(out, key);
    out += ':';
    if constexpr (std::is_integral_v<Value>)
      out += text(value);
    else
      append_string(out, value);
    out += "}}";
  }
};

// One event of a forward before it has a track: a span (X) or an instant (i)
// in a group of tracks (a host's lanes, the forward's, the told facts'), in
// µs from the forward's start. Its args are the fields of `told`.
struct mark {
  bool span;
  std::size_t group;
  std::int64_t ts, dur;
  std::string name;
  const fact* told;
  std::size_t lane = 0;
};

// Groups of tracks: the forwards' lanes, the told facts', "here", the
// forwards' critical paths, then the worker hosts'.
constexpr std::size_t forward_group = 0, told_group = 1, here_group = 2, path_group = 3;

// Whether `f` is stamped by a worker: a node's fact with a host.
bool from_worker(const fact& f) {
  return f.has("host") && (f.name == word::ran || f.name == word::failed || f.name == word::kept
                           || f.name == word::recalled);
}

// The trace's tracks so far, over all its forwards: the groups (a group is
// a process: pid 1 the forwards, with the told facts as its tid 0; pid 2
// "here"; pid 3 the critical paths; then a pid per worker host, in order
// first seen), and per group where each lane's last span ends.
struct layout {
  std::vector<std::string> groups{"forwards", "told", "here", "critical path"};
  std::vector<std::vector<std::int64_t>> lanes{{}, {}, {}, {}};

  std::size_t group_of(std::string_view host) {
    if (host == groups[here_group])
      return here_group;
    auto it = std::find(groups.begin() + path_group + 1, groups.end(), host);
    if (it != groups.end())
      return static_cast<std::size_t>(it - groups.begin());
    groups.emplace_back(host);
    lanes.emplace_back();
    return groups.size() - 1;
  }

  static std::uint64_t pid_of(std::size_t g) { return g <= told_group ? 1 : g; }
  static std::size_t tid_of(std::size_t g, std::size_t lane) {
    return g == told_group ? 0 : lane + 1;
  }

  // The span (ts, dur) of group g, given the first lane free by ts.
  std::size_t place(std::size_t g, std::int64_t ts, std::int64_t dur) {
    auto& ends = lanes[g];
    auto free = std::find_if(ends.begin(), ends.end(), [&](std::int64_t e) { return e <= ts; });
    auto lane = static_cast<std::size_t>(free - ends.begin());
    if (free == ends.end())
      ends.push_back(ts + dur);
    else
      *free = ts + dur;
    return lane;
  }

  // The metadata events naming every process and track so far.
  std::string named(std::size_t& count) const {
    std::string out;
    writer w{out, count, 1};
    for (std::size_t g = 0; g < groups.size(); ++g) {
      if (g == told_group)
        continue;
      w.pid = pid_of(g);
      if (g == path_group && lanes[g].empty())
        continue; // no forward had a path (all took 0)
      auto process = g == forward_group ? std::string{"forwards"}
                     : g == here_group  ? std::string{"here (the client)"}
                     : g == path_group  ? std::string{"critical path"}
                                        : "worker " + groups[g];
      w.meta("process_name", 0, "name", process);
      w.meta("process_sort_index", 0, "sort_index", static_cast<std::int64_t>(w.pid));
      auto track = g == forward_group ? std::string{"forward"} : groups[g];
      for (std::size_t lane = 0; lane < std::max<std::size_t>(1, lanes[g].size()); ++lane) {
        auto tid = tid_of(g, lane);
        w.meta("thread_name", tid, "name",
               lane == 0 ? track : track + " · " + std::to_string(lane + 1));
        w.meta("thread_sort_index", tid, "sort_index", static_cast<std::int64_t>(tid));
      }
      if (g == forward_group && !lanes[told_group].empty()) {
        w.meta("thread_name", 0, "name", "told");
        w.meta("thread_sort_index", 0, "sort_index", std::int64_t{1} << 20);
      }
    }
    return out;
  }
};

// A forward's events before they are written: its marks, and each trip's
// mark with the first of its spans on the worker (a flow's two ends).
struct forward_marks {
  std::vector<mark> marks;
  std::vector<std::pair<std::size_t, std::size_t>> trips;
  std::deque<fact> path; // the critical path's segments as facts, for their marks' args
};

// A forward's critical path as spans on the "critical path" process, named
// "KIND HOST[ NODE]" ("wire out w2", "work w1 embed"), cat "critical".
void mark_path(forward_marks& out, const std::vector<segment>& path) {
  for (auto& s : path) {
    auto kind = std::string{to_string(s.kind)};
    auto& f = out.path.emplace_back(fact{"critical", {{"segment", kind}, {"host", s.host}}});
    if (!s.node.empty())
      f.fields.emplace_back("node", s.node);
    out.marks.push_back({true, path_group, s.began_us, s.took_us,
                         kind + " " + s.host + (s.node.empty() ? "" : " " + s.node), &f});
  }
}

// The marks of forward `r` (its facts `told`), in µs from its start, on the
// groups of `at` (which it extends with a worker host first seen).
forward_marks marks_of(const record& r, const std::vector<fact>& told, layout& at,
                       const std::map<std::string, clock_estimate>& clocks) {
  forward_marks out;
  auto placed = timeline_of(r, told, clocks);
  std::map<const fact*, const segment*> where; // each worker fact, on the client's clock
  for (auto& s : placed.all)
    if (s.fact && s.host != "here" && told[*s.fact].has("host") && told[*s.fact].name != word::left)
      where[&told[*s.fact]] = &s;
  auto& marks = out.marks;
  auto& trips = out.trips;
  std::vector<std::size_t> waiting; // worker marks whose trip has not come yet
  std::int64_t now = 0;             // where the client's facts so far ended
  auto add = [&](mark m) {
    if (!from_worker(*m.told))
      now = std::max(now, m.ts + m.dur);
    marks.push_back(std::move(m));
    return marks.size() - 1;
  };
  auto forward_name = "forward " + std::to_string(r.forward);
  for (auto& f : told) {
    auto node = std::string{f["node"].text()};
    auto began = micros(f, "began_us");
    auto took = std::max<std::int64_t>(0, micros(f, "took_us"));
    if (f.name == word::ran || f.name == word::failed || f.name == word::kept
        || f.name == word::recalled) {
      bool span = f.name != word::recalled;
      auto worker = from_worker(f);
      auto i = add({span, worker ? at.group_of(f["host"].text()) : here_group, began,
                    span ? took : 0, span ? node : "recalled " + node, &f});
      if (worker)
        waiting.push_back(i);
    } else if (f.name == word::left) {
      auto trip = add({true, here_group, began, took, "trip to " + std::string{f["host"].text()}, &f});
      auto end = began + took;
      auto worker = at.group_of(f["host"].text());
      std::optional<std::size_t> first;
      std::erase_if(waiting, [&](std::size_t i) {
        auto& m = marks[i];
        if (m.group != worker)
          return false;
        if (auto w = where.find(m.told); w != where.end()) {
          // Put on this machine's clock by its worker's offset (critical.hpp).
          m.ts = w->second->began_us;
          m.dur = m.span ? w->second->took_us : 0;
        } else { // the worker's clock starts with its slice: inside the trip
          m.ts = std::clamp(began + m.ts, began, end);
          m.dur = std::min(m.dur, end - m.ts);
        }
        if (m.span && (!first || m.ts < marks[*first].ts))
          first = i;
        return true;
      });
      if (first)
        trips.emplace_back(trip, *first);
    } else if (f.name == word::finished || f.name == word::broke) {
      add({true, forward_group, 0, took, forward_name, &f});
      if (f.name == word::broke)
        add({false, forward_group, took, 0, "broke at " + node, &f});
    } else if (f.name == word::items) {
      add({false, here_group, now, 0, "items " + node, &f});
    } else if (f.name != word::machine) {
      add({false, told_group, now, 0, f.name, &f});
    }
  }
  mark_path(out, placed.path);
  return out;
}

// Puts each of `marks` on a lane of its group in `at`, over the whole trace
// (the forward starts `offset_us` after it).
void place_lanes(std::vector<mark>& marks, layout& at, std::int64_t offset_us) {
  // Spans by start (the longer first), each to the first lane of its group
  // free by then, over the whole trace, so that the spans of one track never
  // partly overlap. An instant goes on its group's first lane.
  std::vector<std::size_t> order(marks.size());
  for (std::size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    auto &x = marks[a], &y = marks[b];
    return std::tie(x.ts, y.dur, a) < std::tie(y.ts, x.dur, b);
  });
  for (auto i : order) {
    auto& m = marks[i];
    if (m.span)
      m.lane = at.place(m.group, offset_us + m.ts, m.dur);
    else if (at.lanes[m.group].empty()) // an instant's track, free for any span
      at.lanes[m.group].push_back(std::numeric_limits<std::int64_t>::min());
  }
}

// "12.345 ms": the forward's took_us as its span's args say it.
std::string took_text(const record& r) {
  char took_ms[32];
  auto [end, ec] = std::to_chars(took_ms, took_ms + sizeof(took_ms),
                                 static_cast<double>(r.took_us) / 1000, std::chars_format::fixed, 3);
  return std::string(took_ms, ec == std::errc{} ? end : took_ms) + " ms";
}

// Writes `marks` of forward `r`, placed `offset_us` after the trace's start.
void write_marks(writer& w, const std::vector<mark>& marks, const record& r, std::int64_t offset_us) {
  auto& out = w.out;
  auto took = took_text(r);
  for (auto& m : marks) {
    w.pid = layout::pid_of(m.group);
    w.open(m.name, m.span ? "X" : "i", layout::tid_of(m.group, m.lane));
    w.put("cat", m.told->name);
    w.put("ts", offset_us + m.ts);
    if (m.span)
      w.put("dur", m.dur);
    else
      w.put("s", "t");
    if (m.group == forward_group && m.span) { // the forward's own span says what it was
      out += ",\"args\":{\"forward\":" + text(static_cast<std::int64_t>(r.forward))
             + ",\"state\":";
      append_string(out, to_string(r.state));
      out += ",\"took\":";
      append_string(out, took);
      out += '}';
    } else {
      w.args(*m.told);
    }
    out += '}';
  }
}

// Writes the arrow of each of `f`'s trips, numbered on from `flows`.
void write_flows(writer& w, const forward_marks& f, std::int64_t offset_us, std::uint64_t& flows) {
  auto& out = w.out;
  auto& marks = f.marks;
  // A trip's arrow: from its start to the first of its spans on the worker.
  for (auto [trip, first] : f.trips) {
    auto id = static_cast<std::int64_t>(++flows);
    for (auto i : {trip, first}) {
      auto& m = marks[i];
      w.pid = layout::pid_of(m.group);
      w.open(marks[trip].name, i == trip ? "s" : "f", layout::tid_of(m.group, m.lane));
      w.put("cat", "trip");
      w.put("id", id);
      w.put("ts", offset_us + m.ts);
      if (i == first)
        w.put("bp", "e");
      out += '}';
    }
  }
}

// The events of forward `r` (its facts `told`), placed `offset_us` after the
// trace's start, on the tracks of `at` (which it extends): an object a
// line, joined by ",\n". `flows` numbers the trace's flows; `count` counts
// the objects written.
std::string events_of(const record& r, const std::vector<fact>& told, std::int64_t offset_us,
                      layout& at, std::uint64_t& flows, std::size_t& count,
                      const std::map<std::string, clock_estimate>& clocks) {
  auto f = marks_of(r, told, at, clocks);
  place_lanes(f.marks, at, offset_us);
  std::string out;
  writer w{out, count, 1};
  write_marks(w, f.marks, r, offset_us);
  write_flows(w, f, offset_us, flows);
  return out;
}

// "forwards 3 to 7" or "forward 3".
std::string forwards_named(std::uint64_t a, std::uint64_t b) {
  return a == b ? "forward " + std::to_string(a)
                : "forwards " + std::to_string(a) + " to " + std::to_string(b);
}

// "the newer one", "the 4 newer ones".
std::string newer(std::size_t n) {
  return n == 1 ? "the newer one" : "the " + std::to_string(n) + " newer ones";
}

// The cut, said when the first `held` of the forwards asked are in.
std::string held_note(const std::vector<record>& asked, std::size_t held, std::size_t max) {
  auto rest = asked.size() - held;
  return "the trace holds " + forwards_named(asked.front().forward, asked[held - 1].forward) + ", "
         + std::to_string(held) + " of the " + std::to_string(asked.size())
         + " asked (the oldest first): forward " + std::to_string(asked[held].forward)
         + " would take it past the cap of " + std::to_string(max) + " bytes; `--last "
         + std::to_string(rest) + "` traces " + newer(rest)
         + ", `--forward N` any one, and a larger `--max-bytes` more at once";
}

// The cut, said when the first forward asked is over the cap by itself: a
// trace of it alone takes `needs` bytes.
std::string alone_note(const std::vector<record>& asked, std::size_t needs, std::size_t max) {
  auto n = asked.front().forward;
  auto out = "a trace of forward " + std::to_string(n) + " alone takes " + std::to_string(needs)
             + " bytes, more than the cap of " + std::to_string(max)
             + " bytes, so this one holds none of the " + std::to_string(asked.size())
             + " asked; `--forward " + std::to_string(n) + " --max-bytes " + std::to_string(needs)
             + "` traces it";
  if (asked.size() > 1)
    out += ", and `--last " + std::to_string(asked.size() - 1) + "` " + newer(asked.size() - 1);
  return out;
}

constexpr std::string_view head = "{\"traceEvents\":[\n";

// What closes the document: otherData says what is in and how time is placed.
std::string footer(std::string_view run, std::size_t held, std::size_t asked, std::string_view cut,
                   const std::map<std::string, clock_estimate>& clocks) {
  std::string out = "\n],\"displayTimeUnit\":\"ms\",\"otherData\":{\"run\":";
  append_string(out, run);
  out += ",\"forwards\":" + std::to_string(held) + ",\"asked\":" + std::to_string(asked);
  out += ",\"clock\":\"forwards are placed at the microsecond their recorder saw them begin (whole "
         "seconds in stores written before soma kept microseconds), their facts exactly within "
         "them\"";
  std::string workers = "a worker's facts are placed by its clock's offset from this machine's, "
                        "estimated from its trips (worker less here, µs):";
  for (auto& [host, c] : clocks)
    workers += " " + host + " " + (c.offset_us >= 0 ? "+" : "") + std::to_string(c.offset_us) + " ± "
               + std::to_string(c.bound_us) + ";";
  workers += " a worker with no stamps (an older soma) has its facts from the start of their trip, "
             "kept inside the trip";
  out += ",\"workers\":";
  append_string(out, workers);
  if (!cut.empty()) {
    out += ",\"cut\":";
    append_string(out, cut);
  }
  out += "}}\n";
  return out;
}

} // namespace

trace trace_of(const store& s, std::string_view run, const trace_options& o) {
  if (o.forward && o.last)
    throw std::invalid_argument("a trace is of one forward or of the last N, not both: forward "
                                + std::to_string(*o.forward) + " and the last "
                                + std::to_string(*o.last) + " were asked");
  std::vector<record> asked;
  std::vector<std::vector<fact>> told;
  if (o.forward) {
    told.push_back(facts(s, run, *o.forward)); // names an unknown run or forward
    auto page = forwards(s, run, *o.forward, 1);
    if (page.records.empty() || page.records.front().forward != *o.forward)
      throw store_error("forward " + std::to_string(*o.forward) + " of run '" + std::string{run}
                        + "' has its facts but no record in the store '" + s.path()
                        + "': it is damaged (`soma check` lists where)", store_trouble::damaged);
    asked.push_back(std::move(page.records.front()));
  } else {
    auto last = o.last.value_or(100);
    auto tail = tails(s, {.last = last, .facts = last, .run = std::string{run}});
    if (!tail.empty()) {
      asked = std::move(tail.front().records);
      told = std::move(tail.front().facts);
    }
  }

  auto clocks = estimate_clocks(asked, told);
  trace out;
  out.json = head;
  std::uint64_t flows = 0;
  layout at;
  std::size_t named_count = 0;
  auto named = at.named(named_count); // the tracks of the forwards in so far
  for (std::size_t i = 0; i < asked.size(); ++i) {
    std::size_t count = 0;
    auto offset = asked[i].when_us - asked.front().when_us;
    auto grown = at;
    auto chunk = events_of(asked[i], told[i], offset, grown, flows, count, clocks);
    std::size_t grown_count = 0;
    auto grown_named = grown.named(grown_count);
    auto all = i + 1 == asked.size();
    // Were this the last one in, the document would end so.
    auto end = footer(run, i + 1, asked.size(), all ? "" : held_note(asked, i + 1, o.max_bytes), clocks);
    auto size = out.json.size() + (i > 0 ? 2 : 0) + chunk.size() + 2 + grown_named.size() + end.size();
    if (size > o.max_bytes) {
      out.cut = true;
      out.note = i > 0 ? held_note(asked, i, o.max_bytes)
                       : alone_note(asked, size - end.size() + footer(run, 1, 1, "", clocks).size(),
                                    o.max_bytes);
      break;
    }
    if (i > 0)
      out.json += ",\n";
    out.json += chunk;
    at = std::move(grown);
    named = std::move(grown_named);
    named_count = grown_count;
    out.forwards = i + 1;
    out.events += count;
  }
  if (out.forwards > 0) {
    out.json += ",\n";
    out.json += named;
    out.events += named_count;
  }
  out.json += footer(run, out.forwards, asked.size(), out.note, clocks);
  return out;
}

} // namespace soma
