#include <boost/test/unit_test.hpp>

#include <map>
#include <set>
#include <string>

#include <caf/actor_system.hpp>
#include <nlohmann/json.hpp>

#include "scratch.hpp"
#include "seed_nodes.hpp"
#include "soma/store/trace.hpp"
#include "soma/recorder.hpp"
#include "soma/soma.hpp"
#include "writing.hpp"

using namespace soma_test;
using json = nlohmann::json;

namespace {

// A record seen at `when` unix seconds (and `sub_us` microseconds past).
soma::record at(std::int64_t when, soma::outcome state, std::int64_t took_us, std::int64_t sub_us = 0) {
  soma::record r;
  r.when_us = when * 1'000'000 + sub_us;
  r.state = state;
  r.took_us = took_us;
  return r;
}

// A forward of everything: nodes at once here (b inside a, c across a's
// end), a trip to w1 with two nodes, a recall, a keep, items and a told fact
// whose text JSON must escape.
const std::string told_text = "a \"quoted\"\\path\nnext\x01 \xc3\xa9t\xc3\xa9";

written everything() {
  return {at(1000, soma::outcome::ok, 300),
          {{"ran", {{"node", "a"}, {"began_us", 0}, {"took_us", 100}}},
           {"ran", {{"node", "b"}, {"began_us", 10}, {"took_us", 50}}},
           {"items", {{"node", "c"}, {"done", 1}, {"of", 2}}},
           {"ran", {{"node", "c"}, {"began_us", 50}, {"took_us", 100}}},
           {"kept", {{"node", "c"}, {"began_us", 151}, {"took_us", 4}, {"bytes", 12}}},
           {"recalled", {{"node", "tok"}, {"began_us", 160}, {"took_us", 2}, {"bytes", 64}}},
           {"ran", {{"node", "embed"}, {"began_us", 5}, {"took_us", 30}, {"host", "w1"}}},
           {"ran", {{"node", "rank"}, {"began_us", 40}, {"took_us", 20}, {"host", "w1"}}},
           {"left", {{"host", "w1"}, {"began_us", 170}, {"took_us", 100}}},
           {"ran", {{"node", "score"}, {"began_us", 280}, {"took_us", 5}}},
           {"machine", {{"id", "m"}, {"busy", 0.5}, {"host", "w1"}}},
           {"finished", {{"took_us", 300}}},
           {"note", {{"text", told_text}}}}};
}

written breaking(std::int64_t when) {
  return {at(when, soma::outcome::broke, 20),
          {{"ran", {{"node", "a"}, {"began_us", 0}, {"took_us", 10}}},
           {"failed", {{"node", "b"}, {"error", "no \"b\""}, {"began_us", 12}, {"took_us", 3}}},
           {"broke", {{"node", "b"}, {"error", "no \"b\""}, {"took_us", 20}}}}};
}

written plain(std::int64_t when, int nodes = 1, std::int64_t sub_us = 0) {
  written w{at(when, soma::outcome::ok, 10 * nodes, sub_us), {}};
  for (int i = 0; i < nodes; ++i)
    w.facts.push_back({"ran", {{"node", "n" + std::to_string(i)}, {"began_us", 10 * i}, {"took_us", 9}}});
  w.facts.push_back({"finished", {{"took_us", 10 * nodes}}});
  return w;
}

std::int64_t num(const json& j) {
  return j.is_string() ? std::stoll(j.get<std::string>()) : j.get<std::int64_t>();
}

// What every trace must be, whatever it holds: each event has a name, ph,
// pid, tid and (but metadata) ts; a span's dur is not negative; the spans of
// one track nest or are disjoint; every flow's start, on the client's
// process (2), has its finish on a worker's (3 on), no earlier. Returns the
// events.
const json& well_formed(const json& doc) {
  auto& events = doc.at("traceEvents");
  std::map<std::pair<std::int64_t, std::int64_t>, std::vector<std::pair<std::int64_t, std::int64_t>>> spans;
  std::map<std::int64_t, const json*> starts, finishes;
  for (auto& e : events) {
    BOOST_TEST_REQUIRE((e.contains("name") && e.contains("ph") && e.contains("pid") && e.contains("tid")),
                       e.dump());
    auto ph = e["ph"].get<std::string>();
    if (ph != "M")
      BOOST_TEST_REQUIRE(e.contains("ts"), e.dump());
    if (ph == "X") {
      BOOST_TEST(num(e["dur"]) >= 0);
      spans[{num(e["pid"]), num(e["tid"])}].emplace_back(num(e["ts"]), num(e["ts"]) + num(e["dur"]));
    }
    if (ph == "s")
      starts[num(e["id"])] = &e;
    if (ph == "f") {
      finishes[num(e["id"])] = &e;
      BOOST_TEST(e["bp"] == "e");
    }
  }
  for (auto& [track, on] : spans)
    for (auto& [a0, a1] : on)
      for (auto& [b0, b1] : on) {
        bool apart = a1 <= b0 || b1 <= a0;
        bool nested = (a0 <= b0 && b1 <= a1) || (b0 <= a0 && a1 <= b1);
        BOOST_TEST((apart || nested), "track " << track.first << "/" << track.second << ": [" << a0
                                               << ", " << a1 << ") and [" << b0 << ", " << b1 << ")");
      }
  BOOST_TEST(starts.size() == finishes.size());
  for (auto& [id, s] : starts) {
    BOOST_TEST_REQUIRE(finishes.count(id) == 1u);
    auto& f = *finishes[id];
    BOOST_TEST(num((*s)["pid"]) == 2);
    BOOST_TEST(num(f["pid"]) >= 3);
    BOOST_TEST(num(f["ts"]) >= num((*s)["ts"]));
  }
  return events;
}

// The events of process `pid` whose ph is `ph` and name `name` (and cat
// `cat`, when given).
std::vector<json> named(const json& events, std::int64_t pid, std::string_view ph,
                        std::string_view name, std::string_view cat = {}) {
  std::vector<json> out;
  for (auto& e : events)
    if (num(e["pid"]) == pid && e["ph"] == ph && e["name"] == name
        && (cat.empty() || e.value("cat", "") == cat))
      out.push_back(e);
  return out;
}

// The names of process `pid`'s tracks, by tid.
std::map<std::int64_t, std::string> tracks(const json& events, std::int64_t pid) {
  std::map<std::int64_t, std::string> out;
  for (auto& e : named(events, pid, "M", "thread_name"))
    out[num(e["tid"])] = e["args"]["name"];
  return out;
}

struct crafted {
  scratch tmp;
  soma::store s{tmp / "s"};
  crafted() { write_forwards(s, "mixed", {everything(), breaking(1001), plain(1003)}); }
};

} // namespace

BOOST_AUTO_TEST_SUITE(trace)

// The processes: 1 the forwards (and the told facts), 2 here, 3 on the workers.
constexpr std::int64_t forwards_pid = 1, here_pid = 2, path_pid = 3, w1_pid = 4;

BOOST_FIXTURE_TEST_CASE(every_fact_has_its_event_where_it_happened, crafted) {
  auto t = soma::trace_of(s, "mixed");
  auto doc = json::parse(t.json);
  auto& events = well_formed(doc);
  BOOST_TEST(t.forwards == 3u);
  BOOST_TEST(t.events == events.size());
  BOOST_TEST(!t.cut);
  BOOST_TEST(t.note.empty());
  BOOST_TEST(!doc["otherData"].contains("cut"));
  BOOST_TEST(doc["displayTimeUnit"] == "ms");
  BOOST_TEST(doc["otherData"]["clock"].get<std::string>().find("microsecond") != std::string::npos);
  BOOST_TEST(t.json == soma::trace_of(s, "mixed").json); // the same bytes every time

  // One process per host, named, in order: forwards, here, the worker.
  auto process = [&](std::int64_t pid) {
    auto m = named(events, pid, "M", "process_name");
    return m.size() == 1u ? m[0]["args"]["name"].get<std::string>() : std::string{"(none)"};
  };
  BOOST_TEST(process(forwards_pid) == "forwards");
  BOOST_TEST(process(here_pid) == "here (the client)");
  BOOST_TEST(process(w1_pid) == "worker w1");
  BOOST_TEST(process(path_pid) == "critical path");
  for (std::int64_t pid = 1; pid <= 4; ++pid)
    BOOST_TEST(num(named(events, pid, "M", "process_sort_index")[0]["args"]["sort_index"]) == pid);
  std::set<std::int64_t> pids;
  for (auto& e : events)
    pids.insert(num(e["pid"]));
  BOOST_TEST((pids == std::set<std::int64_t>{1, 2, 3, 4}));

  // Forward 0's events of a process (it is the trace's first second).
  auto zero = [&](std::int64_t pid, std::string_view ph, std::string_view name,
                  std::string_view cat = {}) {
    std::vector<json> out;
    for (auto& e : named(events, pid, ph, name, cat))
      if (num(e["ts"]) < 1'000'000)
        out.push_back(e);
    return out;
  };
  // Forward 0 here: each span's dur is its took_us, its ts its began_us.
  for (auto [node, began, took] : {std::tuple{"a", 0, 100}, {"b", 10, 50}, {"c", 50, 100}, {"score", 280, 5}}) {
    auto ran = zero(here_pid, "X", node, "ran");
    BOOST_TEST_REQUIRE(ran.size() == 1u, node);
    BOOST_TEST(num(ran[0]["ts"]) == began);
    BOOST_TEST(num(ran[0]["dur"]) == took);
    BOOST_TEST(num(ran[0]["dur"]) == num(ran[0]["args"]["took_us"]));
  }
  // b runs inside a, c across a's end and b's: each a lane of its own (a
  // lane holds spans one after the other, so nodes never look nested).
  auto track_of = [&](const json& e) { return tracks(events, num(e["pid"]))[num(e["tid"])]; };
  BOOST_TEST(track_of(zero(here_pid, "X", "a")[0]) == "here");
  BOOST_TEST(track_of(zero(here_pid, "X", "b")[0]) == "here · 2");
  BOOST_TEST(track_of(zero(here_pid, "X", "c", "ran")[0]) == "here · 3");
  BOOST_TEST(track_of(zero(here_pid, "X", "score")[0]) == "here");
  auto keeps = zero(here_pid, "X", "c", "kept");
  BOOST_TEST_REQUIRE(keeps.size() == 1u);
  BOOST_TEST(num(keeps[0]["ts"]) == 151);
  BOOST_TEST(num(keeps[0]["dur"]) == 4);
  // The recall is an instant with its bytes.
  auto recalled = zero(here_pid, "i", "recalled tok");
  BOOST_TEST_REQUIRE(recalled.size() == 1u);
  BOOST_TEST(recalled[0]["s"] == "t");
  BOOST_TEST(num(recalled[0]["ts"]) == 160);
  BOOST_TEST(recalled[0]["args"]["bytes"] == "64");
  BOOST_TEST(zero(here_pid, "i", "items c").size() == 1u);
  // The trip: its worker's spans lie inside it, on the worker's process,
  // and an arrow goes from the trip to the first of them.
  auto trip = zero(here_pid, "X", "trip to w1");
  BOOST_TEST_REQUIRE(trip.size() == 1u);
  BOOST_TEST(track_of(trip[0]) == "here");
  auto t0 = num(trip[0]["ts"]), t1 = t0 + num(trip[0]["dur"]);
  BOOST_TEST(t0 == 170);
  BOOST_TEST(t1 == 270);
  // Its `left` has no worker's stamps (a soma before them): the trip is
  // taken as symmetric, (100 - 60) / 2 = 20 µs each way around the worker's
  // 60 µs.
  for (auto [node, began, took] : {std::tuple{"embed", 5, 30}, {"rank", 40, 20}}) {
    auto ran = zero(w1_pid, "X", node);
    BOOST_TEST_REQUIRE(ran.size() == 1u, node);
    BOOST_TEST(track_of(ran[0]) == "w1");
    BOOST_TEST(num(ran[0]["ts"]) == 170 + 20 + began);
    BOOST_TEST(num(ran[0]["dur"]) == took);
    BOOST_TEST(num(ran[0]["ts"]) >= t0);
    BOOST_TEST(num(ran[0]["ts"]) + num(ran[0]["dur"]) <= t1);
  }
  auto s0 = zero(here_pid, "s", "trip to w1");
  auto f0 = zero(w1_pid, "f", "trip to w1");
  BOOST_TEST_REQUIRE((s0.size() == 1u && f0.size() == 1u));
  BOOST_TEST(s0[0]["tid"] == trip[0]["tid"]);
  BOOST_TEST(num(s0[0]["ts"]) == t0);
  BOOST_TEST(f0[0]["tid"] == zero(w1_pid, "X", "embed")[0]["tid"]);
  BOOST_TEST(num(f0[0]["ts"]) == 195);
  // The forward's own span says what it was; the told fact's text is as told.
  auto whole = zero(forwards_pid, "X", "forward 0");
  BOOST_TEST_REQUIRE(whole.size() == 1u);
  BOOST_TEST(track_of(whole[0]) == "forward");
  BOOST_TEST(num(whole[0]["dur"]) == 300);
  BOOST_TEST(whole[0]["args"]["state"] == "ok");
  BOOST_TEST(whole[0]["args"]["took"] == "0.300 ms");
  auto note = zero(forwards_pid, "i", "note");
  BOOST_TEST_REQUIRE(note.size() == 1u);
  BOOST_TEST(track_of(note[0]) == "told");
  BOOST_TEST(note[0]["args"]["text"] == told_text);
  BOOST_TEST(t.json.find(R"(a \"quoted\"\\path\nnext\u0001 été)") != std::string::npos);
  BOOST_TEST(num(note[0]["ts"]) == 300); // told after it finished: at its end
  BOOST_TEST(zero(here_pid, "X", "m").empty()); // a machine's reading is no event
  // Its critical path, on a process of its own, covers it end to end, and
  // goes through the trip: wire out, the worker's nodes, wire back.
  std::int64_t path_us = 0;
  std::vector<std::string> path;
  for (auto& e : events)
    if (num(e["pid"]) == path_pid && e["ph"] == "X" && num(e["ts"]) < 1'000'000) {
      path_us += num(e["dur"]);
      path.push_back(e["name"]);
      BOOST_TEST(e["cat"] == "critical");
    }
  BOOST_TEST(path_us == 300);
  for (auto* step : {"wire out w1", "work w1 embed", "work w1 rank", "wire back w1"})
    BOOST_TEST((std::find(path.begin(), path.end(), step) != path.end()), step);

  // Forward 1, a second later, on the same tracks: the failure and where it broke.
  auto second = named(events, forwards_pid, "X", "forward 1");
  BOOST_TEST_REQUIRE(second.size() == 1u);
  BOOST_TEST(second[0]["args"]["state"] == "broke");
  BOOST_TEST(num(second[0]["ts"]) == 1'000'000);
  auto a = named(events, here_pid, "X", "a");
  BOOST_TEST_REQUIRE(a.size() == 2u);
  BOOST_TEST(num(a[1]["ts"]) == 1'000'000);
  BOOST_TEST(track_of(a[1]) == "here"); // the lanes free again by then
  std::vector<json> failed;
  for (auto& b : named(events, here_pid, "X", "b"))
    if (b["cat"] == "failed")
      failed.push_back(b);
  BOOST_TEST_REQUIRE(failed.size() == 1u);
  BOOST_TEST(failed[0]["args"]["error"] == "no \"b\"");
  auto broke = named(events, forwards_pid, "i", "broke at b");
  BOOST_TEST_REQUIRE(broke.size() == 1u);
  BOOST_TEST(num(broke[0]["ts"]) == 1'000'020);
  BOOST_TEST(broke[0]["args"]["error"] == "no \"b\"");
  // Forward 2, three seconds after the first.
  BOOST_TEST(num(named(events, here_pid, "X", "n0")[0]["ts"]) == 3'000'000);
}

BOOST_AUTO_TEST_CASE(forwards_are_placed_to_the_microsecond_on_one_timeline_per_host) {
  // 1,000 forwards 40 ms apart, some within one second: each at its own
  // time, and still three processes and one track per host.
  scratch tmp;
  soma::store s{tmp / "s"};
  std::vector<written> many;
  for (std::int64_t i = 0; i < 1000; ++i) {
    auto us = 40'000 * i;
    many.push_back(plain(5000 + us / 1'000'000, 2, us % 1'000'000));
  }
  write_forwards(s, "busy", many);
  auto t = soma::trace_of(s, "busy", {.last = 1000});
  BOOST_TEST(t.forwards == 1000u);
  auto doc = json::parse(t.json);
  auto& events = well_formed(doc);
  std::set<std::int64_t> pids;
  for (auto& e : events)
    pids.insert(num(e["pid"]));
  BOOST_TEST((pids == std::set<std::int64_t>{forwards_pid, here_pid, path_pid}));
  for (std::int64_t n : {0, 1, 9, 10, 26, 999}) {
    auto f = named(events, forwards_pid, "X", "forward " + std::to_string(n));
    BOOST_TEST_REQUIRE(f.size() == 1u, n);
    BOOST_TEST(num(f[0]["ts"]) == 40'000 * n, n);
  }
  BOOST_TEST(tracks(events, here_pid).size() == 1u); // n0 then n1, forward after forward: one lane
  BOOST_TEST(tracks(events, forwards_pid).size() == 1u);
}

BOOST_FIXTURE_TEST_CASE(one_forward_or_the_last_n, crafted) {
  auto forwards_in = [](const soma::trace& t) {
    std::set<std::string> out;
    auto doc = json::parse(t.json);
    for (auto& e : well_formed(doc))
      if (num(e["pid"]) == forwards_pid && e["ph"] == "X")
        out.insert(e["name"].get<std::string>());
    return out;
  };
  auto one = soma::trace_of(s, "mixed", {.forward = 1});
  BOOST_TEST(one.forwards == 1u);
  BOOST_TEST((forwards_in(one) == std::set<std::string>{"forward 1"}));
  // Its own moment is the trace's start.
  BOOST_TEST(one.json.find("\"ts\":1000000") == std::string::npos);
  auto two = soma::trace_of(s, "mixed", {.last = 2});
  BOOST_TEST(two.forwards == 2u);
  BOOST_TEST((forwards_in(two) == std::set<std::string>{"forward 1", "forward 2"}));
  BOOST_TEST(soma::trace_of(s, "mixed", {.last = 9}).forwards == 3u);
  BOOST_CHECK_THROW((void) soma::trace_of(s, "mixed", {.forward = 7}), soma::store_error);
  BOOST_CHECK_THROW((void) soma::trace_of(s, "mixed", {.forward = 0, .last = 1}),
                    std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(the_cap_keeps_whole_forwards_the_oldest_first_and_says_so) {
  scratch tmp;
  soma::store s{tmp / "s"};
  std::vector<written> ten;
  for (int i = 0; i < 10; ++i)
    ten.push_back(plain(2000 + i, 8));
  write_forwards(s, "long", ten);
  auto whole = soma::trace_of(s, "long");
  BOOST_TEST(!whole.cut);
  auto max = whole.json.size() / 2;
  auto t = soma::trace_of(s, "long", {.max_bytes = max});
  BOOST_TEST(t.cut);
  BOOST_TEST(t.json.size() <= max);
  BOOST_TEST_REQUIRE((t.forwards > 0u && t.forwards < 10u));
  auto doc = json::parse(t.json);
  auto& events = well_formed(doc);
  BOOST_TEST(t.events == events.size());
  BOOST_TEST(doc["otherData"]["cut"] == t.note);
  BOOST_TEST(doc["otherData"]["forwards"] == t.forwards);
  auto k = std::to_string(t.forwards);
  auto says = [&](const std::string& part) {
    BOOST_TEST(t.note.find(part) != std::string::npos, "'" << part << "' in: " << t.note);
  };
  says("forwards 0 to " + std::to_string(t.forwards - 1) + ", " + k + " of the 10 asked");
  says("the cap of " + std::to_string(max) + " bytes");
  says("`--last " + std::to_string(10 - t.forwards) + "`");
  says("--forward N");
  says("--max-bytes");
  std::size_t spans = 0;
  for (auto& e : events) // the oldest are in
    if (num(e["pid"]) == forwards_pid && e["ph"] == "X") {
      ++spans;
      BOOST_TEST(std::stoul(e["name"].get<std::string>().substr(8)) < t.forwards);
    }
  BOOST_TEST(spans == t.forwards);
  // The whole trace named its tracks once, at its end.
  BOOST_TEST(named(events, here_pid, "M", "process_name").size() == 1u);

  // One forward over the cap by itself: none of it, and what it would take.
  auto none = soma::trace_of(s, "long", {.max_bytes = 1200});
  BOOST_TEST(none.cut);
  BOOST_TEST(none.forwards == 0u);
  BOOST_TEST(none.events == 0u);
  BOOST_TEST(none.json.size() <= 1200u);
  BOOST_TEST(well_formed(json::parse(none.json)).empty());
  auto at = none.note.find("alone takes ");
  BOOST_TEST_REQUIRE(at != std::string::npos);
  auto needs = std::stoul(none.note.substr(at + 12));
  BOOST_TEST(none.note.starts_with("a trace of forward 0 alone takes " + std::to_string(needs)
                                   + " bytes, more than the cap of 1200 bytes"));
  auto fits = soma::trace_of(s, "long", {.forward = 0, .max_bytes = needs});
  BOOST_TEST(!fits.cut);
  BOOST_TEST(fits.json.size() == needs);
  BOOST_TEST(soma::trace_of(s, "long", {.forward = 0, .max_bytes = needs - 1}).cut);
}

BOOST_FIXTURE_TEST_CASE(an_unknown_run_is_named, crafted) {
  BOOST_CHECK_EXCEPTION((void) soma::trace_of(s, "nope"), soma::store_error,
                        [](const soma::store_error& e) {
                          return std::string{e.what()}.find("no run 'nope'") != std::string::npos;
                        });
  BOOST_CHECK_EXCEPTION((void) soma::trace_of(s, "nope", {.forward = 0}), soma::store_error,
                        [](const soma::store_error& e) {
                          return std::string{e.what()}.find("no run 'nope'") != std::string::npos;
                        });
}

BOOST_AUTO_TEST_CASE(a_recorded_run_with_a_recall) {
  scratch tmp;
  soma::system_config cfg;
  caf::actor_system system{cfg};
  auto g = soma::graph::somatize(system, Tokenize{}.named("tokenize").frozen("1").cached()
                                           >> Embed{}.named("embed") >> Score{}.named("score"));
  soma::store s{tmp / "s"};
  soma::store kept{tmp / "kept"};
  {
    soma::recorder recorder{system, s, {.run = "real"}};
    for (int i = 0; i < 2; ++i)
      g.forward("the quick brown fox", {.watching = recorder, .store = kept});
  }
  auto t = soma::trace_of(s, "real");
  BOOST_TEST(t.forwards == 2u);
  auto doc = json::parse(t.json);
  auto& events = well_formed(doc);
  // The forwards where their records say, to the microsecond.
  auto records = soma::forwards(s, "real");
  BOOST_TEST_REQUIRE(records.size() == 2u);
  BOOST_TEST(num(named(events, forwards_pid, "X", "forward 0")[0]["ts"]) == 0);
  BOOST_TEST(num(named(events, forwards_pid, "X", "forward 1")[0]["ts"])
             == records[1].when_us - records[0].when_us);
  // Every node it ran, here, with the time it told.
  std::multiset<std::int64_t> told, drawn;
  for (std::uint64_t n = 0; n < 2; ++n)
    for (auto& f : soma::facts(s, "real", n))
      if (f.name == "ran")
        told.insert(f["took_us"].integer_or(-1));
  for (auto& e : events)
    if (num(e["pid"]) == here_pid && e["ph"] == "X" && e["cat"] == "ran")
      drawn.insert(num(e["dur"]));
  BOOST_TEST((told == drawn));
  BOOST_TEST(named(events, here_pid, "X", "embed").size() == 2u);
  BOOST_TEST(named(events, here_pid, "X", "score").size() == 2u);
  BOOST_TEST(named(events, here_pid, "X", "tokenize", "ran").size() == 1u);
  BOOST_TEST(named(events, here_pid, "X", "tokenize", "kept").size() == 1u);
  BOOST_TEST(named(events, here_pid, "i", "recalled tokenize").size() == 1u);
}

BOOST_AUTO_TEST_SUITE_END()
