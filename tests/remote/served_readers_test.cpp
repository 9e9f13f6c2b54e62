// Readers of a store served by a soma-node (--serve-store), through
// soma://host:port: answered on the host that holds the store, in bounded
// parts, only the answers crossing the wire (docs/fleet.md).

#include <boost/test/unit_test.hpp>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <future>
#include <thread>

#include <caf/io/middleman.hpp>
#include <caf/scoped_actor.hpp>

#include "../store/scratch.hpp"
#include "latch.hpp"
#include "remote_fixture.hpp"
#include "server_port.hpp"
#include "served.hpp"
#include "soma/health/judge.hpp"
#include "soma/health/rulebook.hpp"
#include "soma/recorder.hpp"
#include "soma/remote/protocol.hpp"
#include "soma/served/questions.hpp"
#include "soma/store/answers.hpp"
#include "soma/store/backend.hpp"
#include "soma/store/cache.hpp"
#include "soma/store/check.hpp"
#include "soma/store/readers.hpp"
#include "soma/store/readings.hpp"
#include "soma/store/trials.hpp"

using namespace soma_test;
using namespace std::chrono_literals;

BOOST_FIXTURE_TEST_SUITE(served_readers, system_fixture)

namespace {

// Bytes of readers' answers a served store handle has received so far.
std::uint64_t received(const soma::store& s) { return remote_of(s).received(); }

// The largest answer a served store handle has received so far, in bytes.
std::uint64_t largest(const soma::store& s) { return remote_of(s).largest(); }

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
      r.tell(soma::fact{"loss", {{"value", 2.0 / (i + 1)}}});
      (void)g.forward("jumps over", {.watching = q});
      q.tell(soma::fact{"loss", {{"value", i}, {"acc", i % 7}}});
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
    if (!reader.starts_with("check") && !reader.starts_with("health")) // these say a line on stderr
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
      r.tell(soma::fact{"loss", {{"value", i}}});
      r.tell(soma::fact{"note", {{"pad", padding}}}); // in the blob only
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

  // soma check walks the store there, in steps its client asks for, saying
  // how far it is; stopped by its progress, a check says it is incomplete.
  {
    auto checked = soma_run("check --progress --store soma://127.0.0.1:" + std::to_string(server.port));
    BOOST_TEST(checked.status == 0, checked.text);
    BOOST_TEST(checked.text.find("soma: checking the store 'soma://127.0.0.1:") != std::string::npos,
               checked.text);
    BOOST_TEST(checked.text.find("no damage found") != std::string::npos, checked.text);
    std::size_t told = 0, total = 0;
    auto whole = soma::check(reader, [&](std::size_t n, std::size_t of) {
      ++told;
      total = of;
      return n <= of;
    });
    BOOST_TEST(whole.complete);
    BOOST_TEST(whole.damaged.empty());
    BOOST_TEST(told >= 1u);
    BOOST_TEST(total == whole.entries);
    auto cut = soma::check(local, [](std::size_t, std::size_t) { return false; });
    BOOST_TEST(!cut.complete);
    BOOST_TEST(cut.entries < whole.entries);
  }

  // The whole run's tail with every blob (20 MB): in parts of at most 4 MiB
  // of stored bytes on the server, stitched into what the store itself
  // answers.
  {
    auto trips = asked(reader);
    soma::tail_options whole{.last = n, .facts = n, .run = "long"};
    auto far = soma::tails(reader, whole);
    trips = asked(reader) - trips;
    auto near = soma::tails(local, whole);
    BOOST_REQUIRE(far.size() == 1u);
    BOOST_REQUIRE(near.size() == 1u);
    BOOST_TEST(far[0].records.size() == static_cast<std::size_t>(n));
    BOOST_TEST(far[0].facts.size() == static_cast<std::size_t>(n));
    BOOST_TEST(far[0].records.front().forward == 0u);
    // Each blob is its own forward's: forward i told loss i.
    auto loss_of = [](const std::vector<soma::fact>& told) {
      for (auto& f : told)
        if (f.name == "loss")
          return f["value"];
      return soma::scalar{};
    };
    for (int i : {0, 4095, 4096, n / 2, n - 1})
      BOOST_TEST((loss_of(far[0].facts[static_cast<std::size_t>(i)]) == soma::scalar{i}), i);
    BOOST_TEST((far[0].records == near[0].records));
    BOOST_TEST((far[0].facts == near[0].facts));
    BOOST_TEST(trips >= 5u, trips << " parts");
    // 4 MiB of stored bytes, and each blob's key and the framing beside them.
    BOOST_TEST(largest(reader) <= (std::uint64_t{4} << 20) * 11 / 10,
               "a part of " << largest(reader) << " bytes");
    // The last 100 with the blobs of the last 10, as soma trace asks: one part.
    trips = asked(reader);
    auto last = soma::tails(reader, {.last = 100, .facts = 10, .run = "long"});
    BOOST_TEST(asked(reader) - trips == 1u);
    BOOST_TEST(last.at(0).records.size() == 100u);
    BOOST_TEST(last.at(0).facts.size() == 10u);
    BOOST_TEST(last.at(0).records.back().forward == static_cast<std::uint64_t>(n - 1));
  }

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

BOOST_AUTO_TEST_CASE(a_reader_in_parts_holds_no_snapshot_and_the_file_grows_as_without_it) {
  // The same writes into two served stores, one read meanwhile by a reader
  // that never stops. Each part of its answers is its own short read
  // transaction there, so LMDB reuses freed pages as it would without it;
  // one read transaction held across the writes would keep every page it
  // sees, and the file would grow by what the commits copied meanwhile.
  scratch dir;
  auto g = seed_graph(sys);
  auto write_and_measure = [&](const std::string& served_dir, bool read_meanwhile) {
    node_process server{{node_program, "--serve-store", served_dir}};
    auto address = "soma://127.0.0.1:" + std::to_string(server.port);
    auto writer = served(sys, address);
    std::atomic<bool> writing{true};
    std::atomic<int> reads{0};
    std::thread reader_thread;
    {
      soma::recorder r{sys, writer, {.run = "big", .summarising = {"loss"}}};
      for (int i = 0; i < 200; ++i)
        (void)g.forward("the quick brown fox", {.watching = r});
      r.flush();
      if (read_meanwhile)
        reader_thread = std::thread([&] {
          auto reader = served(sys, address, {.read_only = true});
          while (writing) {
            (void)soma::forwards(reader, "big");
            ++reads;
          }
        });
      for (int i = 0; i < 8000; ++i) {
        (void)g.forward("the quick brown fox", {.watching = r});
        r.tell(soma::fact{"loss", {{"value", i}}});
        if (i % 40 == 39)
          r.flush(); // 200 commits, each copying pages a long snapshot would keep
      }
    }
    writing = false;
    if (reader_thread.joinable())
      reader_thread.join();
    return std::make_pair(std::filesystem::file_size(std::filesystem::path{served_dir} / "data.mdb"),
                          reads.load());
  };
  auto [alone, none] = write_and_measure(dir / "alone", false);
  auto [read, times] = write_and_measure(dir / "read", true);
  BOOST_TEST(times > 5, "the reader read the run " << times << " times while it was written");
  BOOST_TEST(read <= alone + alone / 4, "the store read meanwhile is " << read << " bytes, "
                                        << alone << " without the reader");
}

BOOST_AUTO_TEST_CASE(standing_and_fleet_merge_the_machines_of_several_stores) {
  // A fleet past one store: each store holds a share of the machines'
  // readings; the run is in one of them.
  scratch dir;
  std::string first = dir / "first", second = dir / "second";
  {
    soma::store a{first};
    soma::store b{second};
    for (int m = 0; m < 2; ++m) {
      soma::put_reading(a, soma::reading{"a-" + std::to_string(m), 0.5, 0.5, 2, 1000, 1,
                                         1'700'000'000'000'000 + m});
      soma::put_reading(b, soma::reading{"b-" + std::to_string(m), 0.5, 0.5, 2, 1000, 1,
                                         1'700'000'003'000'000 + m});
    }
    auto g = seed_graph(sys);
    soma::recorder r{sys, b, {.run = "there"}};
    (void)g.forward("the quick brown fox", {.watching = r});
  }
  node_process server{{node_program, "--serve-store", second}};
  auto both = first + ",soma://127.0.0.1:" + std::to_string(server.port);
  auto listed = soma_says("--json standing --store " + both);
  for (auto id : {"a-0", "a-1", "b-0", "b-1"})
    BOOST_TEST(listed.find(std::string{"\"id\": \""} + id + "\"") != std::string::npos, listed);
  // Writer against writer across the stores: a-0 is 3 s behind b-1.
  BOOST_TEST(listed.find("\"quiet_s\": 3.000001") != std::string::npos, listed);
  auto rows = soma_says("--json fleet there --all-machines --store " + both);
  BOOST_TEST(rows.find("\"machine\": \"a-1\"") != std::string::npos, rows);
  BOOST_TEST(rows.find("\"host\": \"here\"") != std::string::npos, rows);
  auto nowhere = soma_says("fleet nope --store " + both);
  BOOST_TEST(nowhere.find("no run 'nope' in any of the stores") != std::string::npos, nowhere);
  auto refused = soma_says("runs --store " + both);
  BOOST_TEST(refused.find("only for `soma standing` and `soma fleet`") != std::string::npos, refused);
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
      r.tell(soma::fact{"loss", {{"value", i}}});
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
  // Started again on its port later: one no client's own end can take
  // (server_port.hpp).
  auto port = server_port();
  auto server = std::make_unique<node_process>(std::vector<std::string>{
    node_program, "--serve-store", served_dir, "--listen", "127.0.0.1:" + std::to_string(port)});
  auto reader = served(sys, "soma://127.0.0.1:" + std::to_string(port), {.read_only = true});
  BOOST_TEST(soma::runs(reader).size() == 1u);
  // Stopped while a long answer is read, part by part.
  std::atomic<int> read{0};
  auto reading = std::async(std::launch::async, [&] {
    auto began = std::chrono::steady_clock::now();
    try {
      for (int i = 0; i < 1000; ++i, ++read)
        (void)soma::forwards(reader, "kept");
      return std::make_pair(std::string{"never failed"}, std::chrono::steady_clock::now() - began);
    } catch (const soma::store_error& e) {
      return std::make_pair(std::string{e.what()}, std::chrono::steady_clock::now() - began);
    }
  });
  // Into the reading loop (one whole answer read, so the next is on its
  // way): any moment after that will do.
  BOOST_REQUIRE(within(startup_deadline, [&] { return read > 0; }));
  auto stopped_at = stop_whole(server->pid);
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

// The studies answer comes in parts (256 studies, or about 65,536 trials
// summed, a part), each from its own read transaction, and reads as the
// store itself does.
BOOST_AUTO_TEST_CASE(many_studies_come_in_parts_through_soma) {
  scratch dir;
  std::string served_dir = dir / "served";
  {
    soma::store local{served_dir};
    for (int i = 0; i < 600; ++i)
      soma::add_trials(local, "s" + std::to_string(1000 + i),
                       {soma::values{{"lr", 0.1}}, soma::values{{"lr", 0.2}}});
    soma::end_trial(local, "s1599", *soma::claim_trial(local, "s1599", "m"), soma::trial_state::done,
                    soma::values{{"loss", 0.5}});
  }
  node_process server{{node_program, "--serve-store", served_dir}};
  auto reader = served(sys, "soma://127.0.0.1:" + std::to_string(server.port), {.read_only = true});
  auto trips = asked(reader);
  auto far = soma::studies(reader);
  trips = asked(reader) - trips;
  auto near = soma::studies(soma::store{served_dir, {.read_only = true}});
  BOOST_REQUIRE(far.size() == 600u);
  BOOST_REQUIRE(near.size() == 600u);
  BOOST_TEST(trips == 3u);
  for (std::size_t i = 0; i < far.size(); ++i) {
    BOOST_TEST(far[i].study.name == "s" + std::to_string(1000 + i));
    BOOST_TEST(far[i].study.name == near[i].study.name);
    BOOST_TEST(far[i].waiting + far[i].done == 2u);
  }
  BOOST_TEST(far.back().done == 1u);
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
             [&](caf::error& e) { said = soma::describe(e); });
  BOOST_TEST(said.find("the client speaks protocol 1") != std::string::npos, said);
  BOOST_TEST(said.find("upgrade soma") != std::string::npos, said);
}

BOOST_AUTO_TEST_SUITE_END()
