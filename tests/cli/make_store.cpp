// make_store: records the runs the cli tests read back, with the seed's graph
// (tokenize >> embed >> score) and soma::recorder, into a directory.
//
//   make_store DIR            run "tuesday": 12 forwards, a loss told after
//                             each (2.0 * 0.93^step + 0.1, as the seed does),
//                             summarising {"loss"}, params lr=0.05 and
//                             seed=7, tag baseline;
//                             run "plain": 3 forwards, nothing summarised,
//                             forward 1 breaks (no words to score), an acc
//                             told after each (0.5, 0.25, 0.75); param
//                             lr=0.5, tags baseline and short.
//   make_store DIR --damaged  run "bad": 3 forwards, then forward 1's record
//                             and forward 2's fact blob overwritten with bytes
//                             that do not decode; and machine delta-404's
//                             latest reading overwritten the same way.
//   make_store DIR --recording records a forward of run "live", prints
//                             "recording" once it is in the store, and
//                             holds the run open until killed.
//   make_store DIR --fleet    machine readings (soma::put_reading) and run
//                             "remote", written straight into the store as a
//                             recorder leaves a remote run (see write_fleet).
//   make_store DIR --quiet-gap machines alpha-101 and beta-202 reporting
//                             every 0.5 s for a minute from
//                             2027-01-15T08:00:00Z, beta-202 silent from
//                             08:00:20 to 08:00:40 (docs/health.md, replay).
//   make_store DIR --odd-text run "odd": a tag, a text parameter and a
//                             fact's text that are not UTF-8.
//   make_store DIR --sweep    study "sweep" of 6 trials of lr (0.0001 to
//                             10, five decades), each done with loss
//                             (lr 0.01 the lowest, 0.1), but lr 1, which
//                             broke; and study "pair", two parameters.

#include <chrono>
#include <cstdio>
#include <thread>
#include <exception>
#include <string>
#include <string_view>

#include "seed_nodes.hpp"
#include "soma/recorder.hpp"
#include "soma/soma.hpp"
#include "soma/store/detail/environment.hpp"
#include "soma/store/keys.hpp"
#include "soma/store/readings.hpp"
#include "until_killed.hpp"
#include "writing.hpp"

namespace {

template <class Graph>
void record_tuesday(caf::actor_system& sys, const soma::store& s, const Graph& g) {
  soma::recorder rec{sys, s,
                     {.run = "tuesday", .summarising = {"loss"}, .existing = soma::existing_run::overwrite,
                      .params = {{"lr", 0.05}, {"seed", std::int64_t{7}}}, .tags = {"baseline"}}};
  double loss = 2.0;
  for (int step = 0; step < 12; ++step) {
    g.forward("the quick brown fox jumps", {.watching = rec});
    rec.tell(soma::fact{"loss", {{"value", loss + 0.1}}});
    loss *= 0.93;
  }
  rec.flush();
}

template <class Graph>
void record_plain(caf::actor_system& sys, const soma::store& s, const Graph& g) {
  soma::recorder rec{sys, s,
                     {.run = "plain", .existing = soma::existing_run::overwrite, .params = {{"lr", 0.5}},
                      .tags = {"baseline", "short"}}};
  const char* texts[] = {"a bc", "", "the end"};
  const double accs[] = {0.5, 0.25, 0.75};
  for (int step = 0; step < 3; ++step) {
    try {
      g.forward(texts[step], {.watching = rec});
    } catch (const soma::forward_error&) {
      // Expected for the empty text: the record says "broke".
    }
    rec.tell(soma::fact{"acc", {{"value", accs[step]}}});
  }
  rec.flush();
}

// Run "odd": texts that are not UTF-8, as a recorder keeps what it is told
// without checking it: a tag, a text parameter and a fact's text, each with
// a byte that is no UTF-8 (0xE9, Latin-1's é).
template <class Graph>
void record_odd(caf::actor_system& sys, const soma::store& s, const Graph& g) {
  soma::recorder rec{sys, s,
                     {.run = "odd", .existing = soma::existing_run::overwrite,
                      .params = {{"city", std::string{"Gen\xe8ve"}}},
                      .tags = {std::string{"caf\xe9"}}}};
  g.forward("some words", {.watching = rec});
  rec.tell(soma::fact{"said", {{"text", std::string{"d\xe9j\xe0"}}}});
  rec.flush();
}

template <class Graph>
void record_damaged(caf::actor_system& sys, soma::store& s, const Graph& g) {
  {
    soma::recorder rec{sys, s, {.run = "bad", .existing = soma::existing_run::overwrite}};
    for (int step = 0; step < 3; ++step)
      g.forward("some words here", {.watching = rec});
    rec.flush();
  }
  // Whole words that are no Cap'n Proto message: for the record, a segment
  // table claiming 2^31 segments; for the blob, one segment whose root
  // pointer points far outside it.
  using soma::detail::db;
  using namespace std::string_view_literals;
  soma::put_reading(s, {"delta-404", 0.5, 0.5, 1, 1, 0, 1800000000LL * 1000000});
  auto& env = s.env();
  env.write([&](MDB_txn* txn, const std::function<MDB_dbi(db)>& dbi) {
    env.put(txn, dbi(db::records), soma::detail::record_key("bad", 1),
            "\xff\xff\xff\x7fjunk"sv);
    env.put(txn, dbi(db::facts), soma::detail::record_key("bad", 2),
            "\0\0\0\0\x01\0\0\0\xfc\xff\xff\x7f\x01\0\x01\0"sv);
    // The reading's latest entry (readings.cpp keeps it at "latest/<id>").
    env.put(txn, dbi(db::readings), "latest/delta-404", "\xff\xff\xff\x7fjunk"sv);
  });
}

// Two machines writing readings, and a run that sent slices to two graph
// hosts, w1 (machine alpha-101, which has readings) and w2 (gamma-303, which
// has none), as the client records a remote run: ran here, the worker's
// machine fact, ran there, left (the round trip), finished. The recorder
// refuses engine words through tell, so they are written directly.
//
// Readings, at T0 = 4102473600 s (2100-01-01T08:00:00Z): ahead of any clock
// a test runs on, so a machine's state (quiet past 3 of its intervals) is
// judged writer against writer only, as on a fleet whose clocks run ahead
// of the reader's; the reader's clock never makes them all quiet.
//   alpha-101  T0 + 9 s (served 3), then T0 + 10 s: busy 0.25, memory 0.5,
//              8 cores, up 12 s, served 4; listens at 10.0.0.1:4242,
//              serves Embed and Score
//   beta-202   T0 + 7.5 s: busy 0.4, memory 0.3, 4 cores, up 7.5 s, served 0;
//              listens at 10.0.0.2:4242, serves the store /srv/soma
// Run "remote", 4 forwards; each runs `a` here (5 us), then
//   forwards 0-2: `b` on w1, 100 us, a round trip of 1000 us
//   forward 3:    `c` on w2, 50 us, a round trip of 400 us
void write_fleet(soma::store& s) {
  constexpr std::int64_t t0 = 4102473600LL * 1000000;
  soma::put_reading(s, {"alpha-101", 0.5, 0.5, 8, 11000000, 3, t0 + 9000000});
  soma::reading alpha{"alpha-101", 0.25, 0.5, 8, 12000000, 4, t0 + 10000000};
  alpha.listens = "10.0.0.1:4242";
  alpha.serves = {"Embed", "Score"};
  soma::put_reading(s, alpha);
  soma::reading beta{"beta-202", 0.4, 0.3, 4, 7500000, 0, t0 + 7500000};
  beta.listens = "10.0.0.2:4242";
  beta.serves_store = "/srv/soma";
  soma::put_reading(s, beta);
  // A claimant of study "lr", 2 s behind alpha-101, and its study: trial 0
  // done, 1 claimed by it after ghost-9 (no readings) was handed back, 2
  // waiting, 3 broke.
  soma::put_reading(s, {"delta-404", 0.9, 0.2, 2, 8000000, 0, t0 + 8000000, 1, "lr"});
  soma::add_trials(s, "lr", soma::grid({{"lr", {0.1, 0.01, 0.001, 10.0}}}), "sweep");
  auto zero = soma::claim_trial(s, "lr", "delta-404");
  soma::end_trial(s, "lr", *zero, soma::trial_state::done, {{"loss", 0.25}, {"steps", std::int64_t{40}}});
  (void)soma::claim_trial(s, "lr", "ghost-9");
  soma::reclaim(s, "lr", 5);
  (void)soma::claim_trial(s, "lr", "delta-404");
  auto two = soma::claim_trial(s, "lr", "delta-404");
  auto three = soma::claim_trial(s, "lr", "delta-404");
  soma::end_trial(s, "lr", *three, soma::trial_state::broke, {}, "loss is nan at step 3");
  soma::end_trial(s, "lr", *two, soma::trial_state::waiting, {}, "stopped by hand");
  auto trip = [](const char* host, const char* id, const char* node, int took, int round,
                 int served) {
    return std::vector<soma::fact>{
      {"ran", {{"node", "a"}, {"began_us", 1}, {"took_us", 5}}},
      {"machine",
       {{"id", id}, {"busy", 0.75}, {"memory", 0.5}, {"cores", 2}, {"up_us", 1000},
        {"served", served}, {"host", host}}},
      {"ran", {{"node", node}, {"began_us", 10}, {"took_us", took}, {"host", host}}},
      {"left", {{"host", host}, {"began_us", 8}, {"took_us", round}}},
      {"finished", {{"took_us", round + 20}}}};
  };
  soma_test::write_run(s, "remote",
                       {trip("w1", "alpha-101", "b", 100, 1000, 1),
                        trip("w1", "alpha-101", "b", 100, 1000, 2),
                        trip("w1", "alpha-101", "b", 100, 1000, 3),
                        trip("w2", "gamma-303", "c", 50, 400, 1)});
}

} // namespace

// Kept outputs: tokenize (frozen "1") and embed (frozen "2") cached, three
// texts, so six entries, three of each node.
void keep_outputs(caf::actor_system& sys, const soma::store& s) {
  auto g = soma::graph::somatize(sys, Tokenize{}.named("tokenize").frozen("1").cached()
                                        >> Embed{}.named("embed").frozen("2").cached()
                                        >> Score{}.named("score"));
  for (auto text : {"a", "a bb", "a bb ccc"})
    g.forward(text, {.store = s});
}

void write_quiet_gap(soma::store& s) {
  constexpr std::int64_t t0 = 1800000000LL * 1000000;
  for (std::int64_t k = 0; k <= 120; ++k) {
    auto when = t0 + k * 500000;
    for (auto id : {"alpha-101", "beta-202"}) {
      if (id == std::string_view{"beta-202"} && when > t0 + 20000000 && when < t0 + 40000000)
        continue;
      soma::reading r;
      r.id = id;
      r.when_us = when;
      r.every_us = 500000;
      r.busy = 0.25;
      r.memory = 0.5;
      r.cores = 8;
      soma::put_reading(s, r);
    }
  }
}

// A sweep to draw (soma plot study --by): one parameter over five decades.
void write_sweep(soma::store& s) {
  soma::add_trials(s, "sweep", soma::grid({{"lr", {0.0001, 0.001, 0.01, 0.1, 1.0, 10.0}}}), "sweep");
  for (int i = 0; i < 6; ++i) {
    auto n = soma::claim_trial(s, "sweep", "here-1");
    if (i == 4) {
      soma::end_trial(s, "sweep", *n, soma::trial_state::broke, {}, "diverged");
      continue;
    }
    double loss[] = {0.9, 0.4, 0.1, 0.1 + 0.2, 0, 2.5}; // 0.30000000000000004: 6 digits shown are 0.3
    soma::end_trial(s, "sweep", *n, soma::trial_state::done, {{"loss", loss[i]}});
  }
  soma::add_trials(s, "pair", soma::grid({{"lr", {0.1, 0.2}}, {"seed", {1.0, 2.0}}}), "sweep");
  for (int i = 0; i < 4; ++i) {
    auto n = soma::claim_trial(s, "pair", "here-1");
    soma::end_trial(s, "pair", *n, soma::trial_state::done, {{"loss", 1.0 + i}});
  }
}

int main(int argc, char** argv) {
  std::string_view mode = argc == 3 ? argv[2] : "";
  if (argc < 2 || argc > 3
      || (argc == 3 && mode != "--damaged" && mode != "--cached" && mode != "--fleet"
          && mode != "--recording" && mode != "--quiet-gap" && mode != "--sweep"
          && mode != "--odd-text")) {
    std::fprintf(stderr, "usage: make_store DIR [--damaged|--cached|--fleet|--recording|--quiet-gap|--sweep|--odd-text]\n");
    return 2;
  }
  try {
    if (mode == "--fleet" || mode == "--quiet-gap" || mode == "--sweep") {
      soma::store s{argv[1]};
      if (mode == "--fleet")
        write_fleet(s);
      else if (mode == "--sweep")
        write_sweep(s);
      else
        write_quiet_gap(s);
      return 0;
    }
    soma::system_config cfg;
    caf::actor_system sys{cfg};
    auto g = soma::graph::somatize(sys, Tokenize{}.named("tokenize") >> Embed{}.named("embed")
                                          >> Score{}.named("score"));
    soma::store s{argv[1]};
    if (mode == "--damaged") {
      record_damaged(sys, s, g);
    } else if (mode == "--cached") {
      keep_outputs(sys, s);
    } else if (mode == "--odd-text") {
      record_odd(sys, s, g);
    } else if (mode == "--recording") {
      // A writer that lives: run "live", until killed.
      soma_test::record_until_killed(sys, s, g, {.run = "live"});
    } else {
      record_tuesday(sys, s, g);
      record_plain(sys, s, g);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "make_store: %s\n", e.what());
    return 1;
  }
  return 0;
}
