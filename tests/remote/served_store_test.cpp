// A store served by a soma-node (--serve-store) and written through
// soma://host:port by a recorder and by a worker's readings, as if local.

#include <boost/test/unit_test.hpp>


#include <cstdio>
#include <filesystem>
#include <future>
#include <thread>

#include "../store/scratch.hpp"
#include "remote_fixture.hpp"
#include "soma/remote/served_store.hpp"
#include "soma/health/judge.hpp"
#include "soma/recorder.hpp"
#include "soma/store/readers.hpp"
#include "soma/store/readings.hpp"
#include "soma/store/tails.hpp"
#include "soma/wire/served_store.hpp"
#include "soma/store/answers.hpp"
#include "soma/store/backend.hpp"
#include "soma/store/check.hpp"
#include "soma/store/detail/asking.hpp"
#include "soma/store/trials.hpp"
#include "soma/store/cache.hpp"
#include "soma/remote/protocol.hpp"
#include <caf/io/middleman.hpp>
#include <caf/scoped_actor.hpp>

using namespace soma_test;
using namespace std::chrono_literals;

namespace {

// The served store at `address`, opened through `sys`.
soma::store served(caf::actor_system& sys, const std::string& address,
                   soma::store_options options = {}) {
  auto s = soma::open_store(sys, address, options);
  if (!s)
    BOOST_FAIL(soma::describe(s.error()));
  return *s;
}

// What opening `address` through `sys` says.
std::string refusal(caf::actor_system& sys, const std::string& address) {
  auto s = soma::open_store(sys, address);
  return s ? std::string{"opened"} : soma::describe(s.error());
}

// What `soma ARGS` prints.
std::string soma_says(const std::string& args) {
  auto* p = popen((std::string{SOMA_CLI} + " " + args + " 2>&1").c_str(), "r");
  std::string text;
  char buf[512];
  while (p && std::fgets(buf, sizeof buf, p))
    text += buf;
  if (p)
    pclose(p);
  return text;
}

} // namespace

BOOST_FIXTURE_TEST_SUITE(served_store, system_fixture)

BOOST_AUTO_TEST_CASE(a_recorder_and_a_worker_write_through_soma_and_land_in_the_served_store) {
  scratch dir;
  auto served_dir = dir / "served";
  node_process server{{node_program, "--serve-store", served_dir}};
  auto address = "soma://127.0.0.1:" + std::to_string(server.port);

  // A worker reporting into it from elsewhere.
  node_process reporter{{node_program, "--store", address, "--reporting", "0.2"}};

  auto through = served(sys, address);
  BOOST_TEST(through.path() == address);
  BOOST_CHECK_THROW((void)through.env(), soma::store_error); // no environment on this host
  {
    auto g = seed_graph(sys);
    soma::recorder r{sys, through, {.run = "far", .summarising = {"loss"}}};
    for (int i = 0; i < 5; ++i) {
      (void)g.forward("the quick brown fox", {.watching = r});
      r.tell(soma::fact{"loss", {{"value", std::to_string(1.0 / (i + 1))}}});
    }
    r.flush();
  } // a recorder closed has had the server's answer: its forwards committed

  // Read where it landed, on the server's disk; the reporter's first reading
  // comes on its own clock.
  soma::store local{served_dir, {.read_only = true}};
  auto rows = soma::forwards(local, "far");
  BOOST_TEST(rows.size() == 5u);
  auto curve = soma::curve(local, "far", "loss");
  BOOST_REQUIRE(curve.size() == 5u);
  BOOST_TEST(curve[4].second == 0.2);
  auto told = soma::facts(local, "far", 0);
  BOOST_TEST(names(told) == (std::vector<std::string>{"ran", "ran", "ran", "finished", "loss"}));
  BOOST_REQUIRE(eventually([&] { return soma::standing(local).size() == 1u; }));
  auto st = soma::standing(local);
  BOOST_TEST(st.begin()->first.ends_with("-" + std::to_string(reporter.pid)));

  // Its recorder closed, the run is marked ended, through soma:// too.
  auto ended = [&] {
    return soma::tails(soma::store{served_dir, {.read_only = true}}, {.last = 1, .run = "far"})
      .at(0).ended_us;
  };
  BOOST_TEST(ended().has_value());

  // A second recorder through soma:// continues the numbering; while it
  // records, the run has not ended.
  {
    auto g = seed_graph(sys);
    soma::recorder r{sys, through, {.run = "far"}};
    (void)g.forward("again", {.watching = r});
    r.flush();
    BOOST_TEST(!ended().has_value());
  }
  BOOST_TEST(ended().has_value());
  BOOST_TEST(soma::forwards(soma::store{served_dir, {.read_only = true}}, "far").size() == 6u);

  // Read through soma:// as well, by a handle that writes and one that
  // only reads; both see what lands after they were opened.
  auto reader = served(sys, address, {.read_only = true});
  BOOST_TEST(soma::forwards(reader, "far").size() == 6u);
  BOOST_TEST(soma::forwards(through, "far").size() == 6u);
  BOOST_TEST(soma::standing(reader).size() == 1u);
  {
    auto g = seed_graph(sys);
    soma::recorder r{sys, through, {.run = "far"}};
    (void)g.forward("a third time", {.watching = r});
    (void)g.forward("and a fourth", {.watching = r});
  }
  BOOST_TEST(soma::forwards(reader, "far").size() == 8u);
  BOOST_TEST(soma::runs(reader).size() == 1u);
  BOOST_TEST(soma::runs(reader)[0].forwards == 8u);
  // Health judges a served store as it does a directory: the reporter, the
  // run (ended: its last recorder closed), no opinion.
  auto judged = soma::health::judge(reader, soma::health::rulebook::shipped());
  BOOST_TEST(judged.machines == 1u);
  BOOST_TEST(judged.runs == 1u);
  for (auto& o : judged.opinions)
    BOOST_ERROR("an opinion of a store with nothing wrong: " + o.says());
  // A read-only handle writes nothing.
  BOOST_CHECK_EXCEPTION(soma::put_reading(reader, soma::reading{.id = "x-1"}), soma::store_error,
                        [](const soma::store_error& e) {
                          return std::string{e.what()}.find("opened read-only") != std::string::npos;
                        });
}

BOOST_AUTO_TEST_CASE(a_served_store_says_what_is_wrong) {
  // Nobody there.
  auto nobody = refusal(sys, "soma://127.0.0.1:1");
  BOOST_TEST(nobody.find("cannot reach the served store soma://127.0.0.1:1") != std::string::npos, nobody);
  auto nonsense = refusal(sys, "soma://nonsense");
  BOOST_TEST(nonsense.find("soma://HOST:PORT") != std::string::npos, nonsense);
  // A soma-node that serves no store.
  node_process plain{{node_program}};
  auto none = refusal(sys, "soma://127.0.0.1:" + std::to_string(plain.port));
  BOOST_TEST(none.find("serves no store") != std::string::npos, none);
  // Without an actor system, a served store cannot be reached: it says how.
  BOOST_CHECK_EXCEPTION(soma::store{"soma://127.0.0.1:1"}, soma::store_error,
                        [](const soma::store_error& e) {
                          return std::string{e.what()}.find("open it with soma::open_store(system, ")
                                 != std::string::npos;
                        });
}

BOOST_AUTO_TEST_CASE(soma_live_and_soma_runs_over_soma_see_a_run_grow) {
  scratch dir;
  node_process server{{node_program, "--serve-store", dir / "served"}};
  auto address = "soma://127.0.0.1:" + std::to_string(server.port);
  auto through = served(sys, address);
  auto g = seed_graph(sys);
  soma::recorder r{sys, through, {.run = "growing", .summarising = {"loss"}}};
  auto step = [&](int i) {
    (void)g.forward("the quick brown fox", {.watching = r});
    r.tell(soma::fact{"loss", {{"value", std::to_string(1.0 / (i + 1))}}});
  };
  for (int i = 0; i < 3; ++i)
    step(i);
  r.flush();
  // A live view started now, redrawing every 100 ms.
  logged_process live{{SOMA_CLI, "live", "growing", "--store", address, "--interval", "100"},
                       dir / "live.out"};
  BOOST_TEST(eventually([&] { return read_all(live.out).find("forwards 3 ") != std::string::npos; }),
             read_all(live.out));
  for (int i = 3; i < 7; ++i)
    step(i);
  r.flush();
  BOOST_TEST(eventually([&] { return read_all(live.out).find("forwards 7 ") != std::string::npos; }),
             read_all(live.out));
  // One frame, and the runs, read through soma:// too.
  auto once = soma_says("live growing --once --store " + address);
  BOOST_TEST(once.find("forwards 7 ") != std::string::npos, once);
  auto listed = soma_says("--json runs --store " + address);
  BOOST_TEST(listed.find("\"forwards\": 7,") != std::string::npos, listed);
  step(7);
  r.flush();
  listed = soma_says("--json runs --store " + address);
  BOOST_TEST(listed.find("\"forwards\": 8,") != std::string::npos, listed);
}

BOOST_AUTO_TEST_CASE(a_cached_node_here_keeps_and_recalls_through_soma) {
  scratch dir;
  node_process server{{node_program, "--serve-store", dir / "served"}};
  auto kept = served(sys, "soma://127.0.0.1:" + std::to_string(server.port));
  auto g = soma::graph::somatize(sys, Scale{3}.named("s").frozen("1").cached() >> Inc{}.named("after"));
  seen first;
  BOOST_TEST(g.forward(5, {.watching = first.watcher(), .store = kept}) == 16);
  BOOST_TEST(names(first.facts) == (std::vector<std::string>{"ran", "kept", "ran", "finished"}),
             said(first.facts));
  seen second;
  BOOST_TEST(g.forward(5, {.watching = second.watcher(), .store = kept}) == 16);
  BOOST_TEST(names(second.facts) == (std::vector<std::string>{"recalled", "ran", "finished"}),
             said(second.facts));
  // Two graphs asking at once, on a machine of two pooled threads: neither
  // waits on the network in a pooled thread, so both answer.
  auto h = soma::graph::somatize(sys, Scale{7}.named("t").frozen("1").cached());
  auto one = std::async(std::launch::async, [&] { return g.forward(6, {.store = kept}); });
  auto two = std::async(std::launch::async, [&] { return h.forward(6, {.store = kept}); });
  BOOST_TEST(one.get() == 19);
  BOOST_TEST(two.get() == 42);
  BOOST_TEST(soma::cache_entries(soma::store{dir / "served", {.read_only = true}}).size() == 3u);
}

namespace {

// Bytes of readers' answers a served store handle has received so far.
std::uint64_t received(const soma::store& s) {
  auto* remote = dynamic_cast<soma::detail::remote_answers*>(&s.backend().ask());
  BOOST_REQUIRE(remote != nullptr);
  return remote->received();
}

} // namespace

BOOST_AUTO_TEST_CASE(every_reader_through_soma_answers_what_the_local_store_answers) {
  // A store holding runs (one summarised, one not, one with a broke
  // forward), machines' readings, a study's trials and kept outputs.
  scratch dir;
  std::string served_dir = dir / "served";
  {
    soma::store local{served_dir};
    auto g = seed_graph(sys);
    soma::recorder r{sys, local, {.run = "tuesday", .summarising = {"loss"}}};
    soma::recorder q{sys, local, {.run = "wednesday"}};
    for (int i = 0; i < 30; ++i) {
      (void)g.forward("the quick brown fox", {.watching = r});
      r.tell(soma::fact{"loss", {{"value", std::to_string(2.0 / (i + 1))}}});
      (void)g.forward("jumps over", {.watching = q});
      q.tell(soma::fact{"loss", {{"value", std::to_string(i)}, {"acc", std::to_string(i % 7)}}});
    }
    auto broken = soma::graph::somatize(sys, Inc{}.named("first") >> Picky{}.named("picky"));
    soma::recorder b{sys, local, {.run = "broken"}};
    for (int i = 0; i < 4; ++i) // -3 and -2 break at picky
      try {
        (void)broken.forward(i - 3, {.watching = b});
      } catch (const soma::forward_error&) {
      }
    for (int m = 0; m < 3; ++m)
      for (int k = 0; k < 4; ++k)
        soma::put_reading(local, soma::reading{"machine-" + std::to_string(m), 0.25 * m, 0.5, 2,
                                               1000 * k, static_cast<std::uint64_t>(k),
                                               1'700'000'000'000'000 + 500'000 * k + m});
    soma::add_trials(local, "sweep", {soma::values{{"lr", 0.1}}, soma::values{{"lr", 0.2}}});
    auto claimed = soma::claim_trial(local, "sweep", "machine-0");
    BOOST_REQUIRE(claimed);
    soma::end_trial(local, "sweep", *claimed, soma::trial_state::done, soma::values{{"loss", 0.5}});
    auto cached = soma::graph::somatize(sys, Scale{3}.named("s").frozen("1").cached());
    for (int i = 0; i < 3; ++i)
      (void)cached.forward(i, {.store = local});
  }
  node_process server{{node_program, "--serve-store", served_dir}};
  auto address = "soma://127.0.0.1:" + std::to_string(server.port);
  for (std::string reader :
       {"runs", "forwards tuesday", "forwards broken", "facts broken 0", "curve tuesday loss", "curve wednesday loss.acc",
        "facts tuesday 7", "nodes tuesday", "nodes broken", "nodes wednesday --last 4",
        "standing", "fleet tuesday", "trials", "trials sweep", "cache ls", "check",
        "health --at 1700000001", "trace tuesday --last 3 -o /dev/stdout"}) {
    auto here = soma_says("--json " + reader + " --store " + served_dir);
    auto there = soma_says("--json " + reader + " --store " + address);
    if (reader.starts_with("trace") || reader.starts_with("health"))
      here = soma_says(reader + " --store " + served_dir), there = soma_says(reader + " --store " + address);
    if (reader == "check") { // its last line names the store it checked
      here = here.substr(0, here.find("entries of the store"));
      there = there.substr(0, there.find("entries of the store"));
    }
    BOOST_TEST(!here.empty(), reader);
    BOOST_TEST(here.find("soma: ") == std::string::npos, reader << ": " << here);
    BOOST_TEST(there == here, "soma " << reader << " through soma:// answered\n" << there
                                      << "\nwhere the store itself answers\n" << here);
  }
  // Errors too: a missing run and a missing forward say what they say here.
  auto missing = soma_says("forwards nope --store " + address);
  BOOST_TEST(missing.find("no run 'nope'") != std::string::npos, missing);
  auto beyond = soma_says("facts tuesday 30 --store " + address);
  BOOST_TEST(beyond.find("has no forward 30 (it has forwards 0 to 29)") != std::string::npos, beyond);
}

BOOST_AUTO_TEST_CASE(a_long_answer_comes_in_parts_and_only_answers_cross_the_wire) {
  scratch dir;
  std::string served_dir = dir / "served";
  // A run longer than several parts, with big fact blobs (that no reader of
  // records must move) and a summarised loss.
  constexpr int n = 10000;
  {
    soma::store local{served_dir};
    auto g = seed_graph(sys);
    soma::recorder r{sys, local, {.run = "long", .summarising = {"loss"}}};
    std::string padding(2000, 'x');
    for (int i = 0; i < n; ++i) {
      (void)g.forward("the quick brown fox", {.watching = r});
      r.tell(soma::fact{"loss", {{"value", std::to_string(i)}, {"pad", padding}}});
    }
  }
  BOOST_TEST(n > 2 * soma::detail::forwards_per_part);
  auto store_bytes = std::filesystem::file_size(std::filesystem::path{served_dir} / "data.mdb");
  node_process server{{node_program, "--serve-store", served_dir}};
  auto reader = served(sys, "soma://127.0.0.1:" + std::to_string(server.port), {.read_only = true});
  soma::store local{served_dir, {.read_only = true}};

  auto before = received(reader);
  auto rows = soma::forwards(reader, "long");
  BOOST_TEST(rows == soma::forwards(local, "long"));
  BOOST_TEST(rows.size() == static_cast<std::size_t>(n));
  auto moved = received(reader) - before;
  // Records are about 60 bytes here; their blobs 2 KB each, which stay there.
  BOOST_TEST(moved < n * 150u, moved << " bytes moved for " << n << " records");
  BOOST_TEST(moved * 10 < store_bytes);

  before = received(reader);
  auto curve = soma::curve(reader, "long", "loss");
  BOOST_TEST(curve == soma::curve(local, "long", "loss"));
  BOOST_TEST(received(reader) - before < n * 2 * 16u);

  // A tally over every blob, answered there: a few rows cross the wire.
  before = received(reader);
  BOOST_TEST(soma::nodes(reader, "long").size() == 3u);
  BOOST_TEST(received(reader) - before < 8192u);

  before = received(reader);
  BOOST_TEST(soma::runs(reader).size() == 1u);
  auto page = soma::forwards(reader, "long", n - 5, 100);
  BOOST_TEST(page.records.size() == 5u);
  BOOST_TEST(page.total == static_cast<std::uint64_t>(n));
  BOOST_TEST(received(reader) - before < 2048u);

  // The explicit copy is the one way the store's bytes leave its host.
  auto copy_dir = dir / "copy";
  auto said = soma_says("copy soma://127.0.0.1:" + std::to_string(server.port) + " " + copy_dir);
  BOOST_TEST(said.find("copied the store") != std::string::npos, said);
  soma::store copied{copy_dir, {.read_only = true}};
  BOOST_TEST(soma::runs(copied).front().forwards == static_cast<std::uint64_t>(n));
  BOOST_TEST(soma::facts(copied, "long", n - 1) == soma::facts(local, "long", n - 1));
  auto again = soma_says("copy " + served_dir + " " + copy_dir);
  BOOST_TEST(again.find("already holds a store") != std::string::npos, again);
}

BOOST_AUTO_TEST_CASE(a_follower_is_sent_only_what_is_new) {
  scratch dir;
  node_process server{{node_program, "--serve-store", dir / "served"}};
  auto address = "soma://127.0.0.1:" + std::to_string(server.port);
  auto writer = served(sys, address);
  auto reader = served(sys, address, {.read_only = true});
  auto g = seed_graph(sys);
  soma::recorder r{sys, writer, {.run = "growing", .summarising = {"loss"}}};
  auto step = [&](int from, int to) {
    for (int i = from; i < to; ++i) {
      (void)g.forward("the quick brown fox", {.watching = r});
      r.tell(soma::fact{"loss", {{"value", std::to_string(i)}}});
    }
    r.flush();
  };
  step(0, 3000);
  auto seen = soma::forwards(reader, "growing").size();
  BOOST_TEST(seen == 3000u);
  auto v = reader.backend().ask().version();
  step(3000, 3100);
  BOOST_TEST(reader.backend().ask().version() > v);
  // What a live view asks: the forwards after those it has, and the runs.
  auto before = received(reader);
  auto page = soma::forwards(reader, "growing", seen, 10000);
  BOOST_TEST(page.records.size() == 100u);
  BOOST_TEST(page.records.front().forward == 3000u);
  auto rows = soma::runs(reader);
  BOOST_TEST(rows.at(0).forwards == 3100u);
  auto moved = received(reader) - before;
  BOOST_TEST(moved < 100 * 150u, moved << " bytes for 100 new forwards");
  // soma live --once and soma runs, in processes of their own, see them too.
  auto once = soma_says("live growing --once --store " + address);
  BOOST_TEST(once.find("forwards 3100 ") != std::string::npos, once);
}

BOOST_AUTO_TEST_CASE(a_server_stopped_or_killed_mid_answer_is_an_error_within_the_bound_then_recovers) {
  scratch dir;
  std::string served_dir = dir / "served";
  {
    soma::store local{served_dir};
    auto g = seed_graph(sys);
    soma::recorder r{sys, local, {.run = "kept"}};
    for (int i = 0; i < 20000; ++i)
      (void)g.forward("the quick brown fox", {.watching = r});
  }
  auto server = std::make_unique<node_process>(std::vector<std::string>{node_program, "--serve-store", served_dir});
  auto port = server->port;
  auto reader = served(sys, "soma://127.0.0.1:" + std::to_string(port), {.read_only = true});
  BOOST_TEST(soma::runs(reader).size() == 1u);
  // Stopped while a long answer is read, part by part.
  auto reading = std::async(std::launch::async, [&] {
    auto began = std::chrono::steady_clock::now();
    try {
      for (int i = 0; i < 1000; ++i)
        (void)soma::forwards(reader, "kept");
      return std::make_pair(std::string{"never failed"}, std::chrono::steady_clock::now() - began);
    } catch (const soma::store_error& e) {
      return std::make_pair(std::string{e.what()}, std::chrono::steady_clock::now() - began);
    }
  });
  std::this_thread::sleep_for(50ms); // into the reading loop: any moment will do
  BOOST_REQUIRE(kill(server->pid, SIGSTOP) == 0);
  auto stopped_at = std::chrono::steady_clock::now();
  BOOST_REQUIRE(reading.wait_for(20s) == std::future_status::ready);
  auto [why, took] = reading.get();
  auto after_stop = std::chrono::steady_clock::now() - stopped_at;
  BOOST_TEST(why.find("the served store soma://127.0.0.1:" + std::to_string(port)) != std::string::npos, why);
  BOOST_TEST((after_stop <= 5s + 1500ms), "a reader of a stopped server failed after "
                                           << std::chrono::duration_cast<std::chrono::milliseconds>(after_stop).count()
                                           << " ms");
  BOOST_REQUIRE(kill(server->pid, SIGCONT) == 0);
  BOOST_TEST(eventually([&] {
    try {
      return soma::forwards(reader, "kept").size() == 20000u;
    } catch (const soma::store_error&) {
      return false;
    }
  }));
  // Killed: the next call fails at once, naming it; restarted, it answers.
  kill(server->pid, SIGKILL);
  waitpid(server->pid, nullptr, 0);
  server->pid = -1;
  auto began = std::chrono::steady_clock::now();
  try {
    (void)soma::forwards(reader, "kept");
    BOOST_FAIL("a killed server answered");
  } catch (const soma::store_error& e) {
    BOOST_TEST((e.trouble() == soma::store_trouble::unreachable), e.what());
  }
  BOOST_TEST((std::chrono::steady_clock::now() - began < 6500ms));
  server = std::make_unique<node_process>(std::vector<std::string>{
    node_program, "--serve-store", served_dir, "--listen", "127.0.0.1:" + std::to_string(port)});
  BOOST_TEST(eventually([&] {
    try {
      return soma::runs(reader).at(0).forwards == 20000u;
    } catch (const soma::store_error&) {
      return false;
    }
  }));
}

BOOST_AUTO_TEST_CASE(a_client_of_the_copy_protocol_is_told_to_upgrade) {
  scratch dir;
  node_process server{{node_program, "--serve-store", dir / "served"}};
  // What a soma before store protocol 2 sends first: a session in mode "store".
  auto front = sys.middleman().remote_actor("127.0.0.1", server.port);
  BOOST_REQUIRE(front);
  caf::scoped_actor self{sys};
  std::string said;
  self->request(*front, 5s, soma::detail::open_atom::value, caf::actor{self}, std::string{"store"})
    .receive([&](caf::actor&) { said = "opened"; },
             [&](caf::error& e) { said = e.context().match_elements<std::string>()
                                           ? e.context().get_as<std::string>(0) : sys.render(e); });
  BOOST_TEST(said.find("the client speaks protocol 1") != std::string::npos, said);
  BOOST_TEST(said.find("upgrade soma") != std::string::npos, said);
}

namespace {

// Records forwards `from`..`to`-1 with a loss equal to the step into `r`,
// one every few milliseconds (the pace of a real loop, not a wait).
void record_steps(soma::typed_graph<std::string, double>& g, soma::recorder& r, int from, int to) {
  for (int i = from; i < to; ++i) {
    (void)g.forward("the quick brown fox", {.watching = r});
    r.tell(soma::fact{"loss", {{"value", std::to_string(i)}}});
    std::this_thread::sleep_for(2ms);
  }
}

// Flushes until it works, for at most `within`; how many tries failed.
int flush_until_written(soma::recorder& r, std::chrono::seconds within) {
  auto until = std::chrono::steady_clock::now() + within;
  int failed = 0;
  for (;;) {
    try {
      r.flush();
      return failed;
    } catch (const soma::store_error&) {
      ++failed;
      BOOST_REQUIRE_MESSAGE(std::chrono::steady_clock::now() < until,
                            "the recorder did not recover within " << within.count() << " s");
      std::this_thread::sleep_for(100ms);
    }
  }
}

// Every forward 0..n-1 is there exactly once, holding its own step's loss.
void each_forward_once(const std::string& served_dir, const std::string& run, int n) {
  soma::store local{served_dir, {.read_only = true}};
  auto rows = soma::forwards(local, run);
  BOOST_TEST(rows.size() == static_cast<std::size_t>(n));
  auto curve = soma::curve(local, run, "loss");
  BOOST_REQUIRE(curve.size() == static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    BOOST_TEST(curve[static_cast<std::size_t>(i)].first == static_cast<std::uint64_t>(i));
    BOOST_TEST(curve[static_cast<std::size_t>(i)].second == static_cast<double>(i),
               "forward " << i << " holds step " << curve[static_cast<std::size_t>(i)].second);
  }
}

} // namespace

BOOST_AUTO_TEST_CASE(a_stopped_server_fails_a_flush_within_the_bound_and_nothing_is_written_twice) {
  scratch dir;
  std::string served_dir = dir / "served";
  node_process server{{node_program, "--serve-store", served_dir}};
  auto through = served(sys, "soma://127.0.0.1:" + std::to_string(server.port));
  auto g = seed_graph(sys);
  {
  soma::recorder r{sys, through, {.run = "stalled", .summarising = {"loss"}, .durable_within = 20ms}};
  record_steps(g, r, 0, 50);
  r.flush();
  // Stopped while batches are on their way: one may reach it and be written
  // with its answer lost, and is then sent again.
  record_steps(g, r, 50, 60);
  BOOST_REQUIRE(kill(server.pid, SIGSTOP) == 0);
  record_steps(g, r, 60, 70);
  auto began = std::chrono::steady_clock::now();
  BOOST_CHECK_THROW(r.flush(), soma::store_error);
  auto took = std::chrono::steady_clock::now() - began;
  BOOST_TEST((took <= soma::detection_bound(sys.config()) + 1500ms),
             "a flush to a stopped server took "
               << std::chrono::duration_cast<std::chrono::milliseconds>(took).count() << " ms");
  BOOST_REQUIRE(kill(server.pid, SIGCONT) == 0);
  record_steps(g, r, 70, 80);
  flush_until_written(r, 30s);
  } // closed: everything told is written
  each_forward_once(served_dir, "stalled", 80);
}

BOOST_AUTO_TEST_CASE(a_server_killed_and_restarted_is_written_again_by_itself_and_nothing_is_lost) {
  scratch dir;
  std::string served_dir = dir / "served";
  auto server = std::make_unique<node_process>(std::vector<std::string>{node_program, "--serve-store", served_dir});
  auto port = server->port;
  auto through = served(sys, "soma://127.0.0.1:" + std::to_string(port));
  auto g = seed_graph(sys);
  {
  soma::recorder r{sys, through, {.run = "restarted", .summarising = {"loss"}, .durable_within = 20ms}};
  record_steps(g, r, 0, 40);
  r.flush();
  kill(server->pid, SIGKILL);
  waitpid(server->pid, nullptr, 0);
  server->pid = -1;
  record_steps(g, r, 40, 50); // into nowhere: held
  server = std::make_unique<node_process>(std::vector<std::string>{
    node_program, "--serve-store", served_dir, "--listen", "127.0.0.1:" + std::to_string(port)});
  record_steps(g, r, 50, 60);
  flush_until_written(r, 30s);
  } // closed: everything told is written
  each_forward_once(served_dir, "restarted", 60);
}

BOOST_AUTO_TEST_SUITE_END()
