// A store served by a soma-node (--serve-store) and written through
// soma://host:port by a recorder and by a worker's readings, as if local.

#include <boost/test/unit_test.hpp>


#include <atomic>
#include <cstdio>
#include <filesystem>
#include <future>
#include <thread>

#include "../store/child.hpp"
#include "../store/scratch.hpp"
#include "latch.hpp"
#include "remote_fixture.hpp"
#include "server_port.hpp"
#include "served.hpp"
#include "soma/remote/served_store.hpp"
#include "soma/health/judge.hpp"
#include "soma/recorder.hpp"
#include "soma/store/readers.hpp"
#include "soma/store/readings.hpp"
#include "soma/store/standing.hpp"
#include "soma/store/tails.hpp"
#include "soma/wire/served_store.hpp"
#include "soma/store/answers.hpp"
#include "soma/store/backend.hpp"
#include "soma/store/check.hpp"
#include "soma/served/questions.hpp"
#include "soma/store/trials.hpp"
#include "soma/store/cache.hpp"
#include "soma/remote/protocol.hpp"
#include <caf/io/middleman.hpp>
#include <caf/scoped_actor.hpp>

using namespace soma_test;
using namespace std::chrono_literals;


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
      r.tell(soma::fact{"loss", {{"value", 1.0 / (i + 1)}}});
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
    if (o.rule != "busy_machine") // the worker's reading is this machine's real load, which
                                  // the tests running beside this one raise past 0.9
      BOOST_ERROR("an opinion of a store with nothing wrong: " + o.says());
  // A read-only handle writes nothing.
  BOOST_CHECK_EXCEPTION(soma::put_reading(reader, soma::reading{.id = "x-1"}), soma::store_error,
                        [](const soma::store_error& e) {
                          return std::string{e.what()}.find("opened read-only") != std::string::npos;
                        });
}

BOOST_AUTO_TEST_CASE(a_client_killed_while_it_records_leaves_its_run_died_and_says_how_that_is_known) {
  scratch dir;
  auto served_dir = dir / "served";
  node_process server{{node_program, "--serve-store", served_dir}};
  auto address = "soma://127.0.0.1:" + std::to_string(server.port);
  auto through = served(sys, address, {.read_only = true});
  child writer{{SOMA_RECORD_CHILD, address, "far", "0", "20"}};
  auto line = writer.line(30s);
  BOOST_REQUIRE(line);
  BOOST_TEST(*line == "durable 20");
  // The server writes for it and lives: running, judged on the server's
  // machine, and it names the client it writes for.
  auto row = soma::run_summary(through, "far");
  BOOST_TEST(row.status == soma::run_status::running, row.how);
  auto client = "-" + std::to_string(writer.pid()) + ")";
  BOOST_TEST(row.how.find("a served store's server, writing for ") != std::string::npos, row.how);
  BOOST_TEST(row.how.find(client) != std::string::npos, row.how);
  auto pid = writer.pid();
  writer.kill(SIGKILL);
  (void) writer.wait();
  // The server sees its client go and marks the run: within 10 s (the
  // connection closes with the process).
  BOOST_REQUIRE(within(std::chrono::seconds(10), [&] {
    return soma::run_summary(through, "far").status == soma::run_status::died;
  }));
  row = soma::run_summary(through, "far");
  BOOST_TEST(row.how.starts_with("the served store's server saw its client "), row.how);
  BOOST_TEST(row.how.find(std::to_string(pid) + " go without closing it at ") != std::string::npos,
             row.how);
  BOOST_TEST(!row.ended_us.has_value());
  // A store read on its own machine says the same.
  BOOST_TEST(soma::run_summary(soma::store{served_dir, {.read_only = true}}, "far").status
             == soma::run_status::died);
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

BOOST_AUTO_TEST_CASE(soma_delete_through_soma_refuses_before_it_asks) {
  scratch dir;
  node_process server{{node_program, "--serve-store", dir / "served"}};
  auto address = "soma://127.0.0.1:" + std::to_string(server.port);
  {
    auto s = served(sys, address);
    auto g = seed_graph(sys);
    soma::recorder r{sys, s, {.run = "kept"}};
    (void)g.forward("one", {.watching = r});
  }
  // Even with a terminal's answer ready, nothing is asked and nothing goes.
  auto said = soma_says("delete kept --store " + address + " < /dev/null");
  BOOST_TEST(said.find("cannot delete runs through the served store " + address) != std::string::npos,
             said);
  BOOST_TEST(said.find("on the host that serves it") != std::string::npos, said);
  BOOST_TEST(said.find("[y/N]") == std::string::npos, said);
  said = soma_says("delete kept --yes --store " + address);
  BOOST_TEST(said.find("cannot delete runs through the served store") != std::string::npos, said);
  BOOST_TEST(soma::run_summary(soma::store{dir / "served", {.read_only = true}}, "kept").run == "kept");
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
    r.tell(soma::fact{"loss", {{"value", 1.0 / (i + 1)}}});
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

// Records forwards `from`..`to`-1 with a loss equal to the step into `r`,
// one every few milliseconds (the pace of a real loop, not a wait).
void record_steps(soma::typed_graph<std::string, double>& g, soma::recorder& r, int from, int to) {
  for (int i = from; i < to; ++i) {
    (void)g.forward("the quick brown fox", {.watching = r});
    r.tell(soma::fact{"loss", {{"value", i}}});
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
  // Every thread of it stopped before the next batches leave: none of them
  // can be taken in by a thread still running.
  (void)stop_whole(server.pid);
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
  // Started again on its port while the recorder retries: a port no
  // retry's own end can take (server_port.hpp).
  auto port = server_port();
  auto server = std::make_unique<node_process>(std::vector<std::string>{
    node_program, "--serve-store", served_dir, "--listen", "127.0.0.1:" + std::to_string(port)});
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
