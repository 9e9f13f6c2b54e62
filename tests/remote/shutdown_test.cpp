// Bounded shutdown: a soma-node exits within its bound of SIGTERM whatever
// it is doing (idle clients, a forward in flight), says what it cut short,
// and its exit status says whether the stop was clean; a spawned worker
// stops within the same bound when the program that spawned it is killed;
// a client whose worker is stopped exits without hanging.

#include <boost/test/unit_test.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <sstream>
#include <thread>

#include "remote_fixture.hpp"
#include "soma/remote/served_store.hpp"
#include "soma/recorder.hpp"
#include "soma/store/readers.hpp"
#include "soma/store/readings.hpp"
#include "soma/store/standing.hpp"

using namespace soma_test;
using clock_type = std::chrono::steady_clock;
using std::chrono::milliseconds;

namespace {

/// Whether a thread of `pid` is in nanosleep or clock_nanosleep: for a
/// worker (whose own threads wait on futexes and signals) that is Sleepy
/// running a slice.
bool sleeping_in_a_node(pid_t pid) {
  std::error_code ignored;
  for (auto& task : std::filesystem::directory_iterator{"/proc/" + std::to_string(pid) + "/task", ignored}) {
    std::ifstream in{task.path() / "syscall"};
    long number = -1;
    if (in >> number && (number == 35 || number == 230)) // x86_64 nanosleep, clock_nanosleep
      return true;
  }
  return false;
}

/// The most a soma-node's stop may take (docs/remote.md): --stop-within's
/// default of 1.5 s, plus what cutting short costs.
constexpr milliseconds stop_bound{2000};

} // namespace

BOOST_FIXTURE_TEST_SUITE(remote_shutdown, system_fixture)

BOOST_AUTO_TEST_CASE(a_worker_with_a_forward_in_flight_exits_within_the_bound_of_sigterm_twenty_times) {
  auto log = std::filesystem::temp_directory_path() / ("soma-stop-log-" + std::to_string(getpid()));
  std::vector<long long> took;
  for (int round = 0; round < 20; ++round) {
    node_process worker{{"sh", "-c", "exec '" + node_program + "' --nodes '" + test_nodes + "' 2>'"
                                       + log.string() + "'"}};
    auto w1 = soma::worker::connect(sys, "127.0.0.1:" + std::to_string(worker.port));
    auto broker = soma::broker::embedded({{"w1", w1}});
    auto g = soma::graph::somatize(sys, Sleepy{}.named("sleepy").at("w1"));
    BOOST_REQUIRE(g.forward(1, {.broker = broker}) == 1);
    auto pending = std::async(std::launch::async, [&] { return g.forward(10000, {.broker = broker}); });
    // SIGTERM once the slice runs over there (a stop with nothing running is
    // the next test's): a thread of the worker sleeping in the node.
    BOOST_REQUIRE_MESSAGE(eventually([&] { return sleeping_in_a_node(worker.pid); }),
                          "round " << round << ": the slice never began over there");
    auto began = clock_type::now();
    BOOST_REQUIRE(kill(worker.pid, SIGTERM) == 0);
    int status = reaped_within(worker.pid, milliseconds(10000));
    auto ms = std::chrono::duration_cast<milliseconds>(clock_type::now() - began).count();
    BOOST_REQUIRE_MESSAGE(status != -1, "round " << round << ": still running 10 s after SIGTERM");
    worker.pid = -1;
    took.push_back(ms);
    BOOST_TEST(ms <= stop_bound.count(), "round " << round << ": exited " << ms << " ms after SIGTERM");
    BOOST_TEST(WIFEXITED(status));
    auto text = read_all(log);
    // Cut short: the slice was still running, and it says so.
    BOOST_TEST(WEXITSTATUS(status) == 3, "round " << round << ": " << text);
    BOOST_TEST(text.find("stop cut short after 1500 ms: 1 slice(s) still running") != std::string::npos, text);
    // The client's forward ends with the worker named, promptly.
    BOOST_REQUIRE(pending.wait_for(std::chrono::seconds(5)) == std::future_status::ready);
    try {
      (void)pending.get();
      BOOST_FAIL("a forward whose worker stopped gave a value");
    } catch (const soma::forward_error& e) {
      BOOST_TEST(std::string{e.what()}.find("worker w1 (127.0.0.1:") != std::string::npos, e.what());
    }
  }
  std::sort(took.begin(), took.end());
  BOOST_TEST_MESSAGE("SIGTERM to exit with a forward in flight, ms: median " << took[took.size() / 2]
                     << ", max " << took.back());
  std::filesystem::remove(log);
}

BOOST_AUTO_TEST_CASE(a_worker_with_idle_clients_a_writer_and_a_reporter_stops_cleanly_within_the_bound) {
  auto dir = std::filesystem::temp_directory_path() / ("soma-stop-store-" + std::to_string(getpid()));
  auto served = dir.string() + "-served";
  auto log = dir.string() + ".log";
  node_process worker{{"sh", "-c", "exec '" + node_program + "' --nodes '" + test_nodes
                                     + "' --store '" + dir.string() + "' --reporting 0.1 --serve-store '"
                                     + served + "' 2>'" + log + "'"}};
  // A recorder writing through the store it serves, still open at SIGTERM.
  auto opened = soma::open_store(sys, "soma://127.0.0.1:" + std::to_string(worker.port));
  if (!opened)
    BOOST_FAIL(soma::describe(opened.error()));
  auto through = *opened;
  auto seed = seed_graph(sys);
  std::optional<soma::recorder> writer;
  writer.emplace(sys, through, soma::recorder_options{.run = "kept"});
  for (int i = 0; i < 5; ++i)
    (void)seed.forward("the quick brown fox", {.watching = *writer});
  writer->flush(); // confirmed durable: must be there after the stop
  std::vector<soma::worker> clients;
  for (int i = 0; i < 3; ++i)
    clients.push_back(soma::worker::connect(sys, "127.0.0.1:" + std::to_string(worker.port)));
  auto broker = soma::broker::embedded({{"w1", clients[0]}});
  auto g = soma::graph::somatize(sys, Inc{}.named("a").at("w1"));
  BOOST_TEST(g.forward(1, {.broker = broker}) == 2);
  auto began = clock_type::now();
  BOOST_REQUIRE(kill(worker.pid, SIGTERM) == 0);
  int status = reaped_within(worker.pid, milliseconds(10000));
  auto ms = std::chrono::duration_cast<milliseconds>(clock_type::now() - began).count();
  BOOST_REQUIRE_MESSAGE(status != -1, "still running 10 s after SIGTERM");
  worker.pid = -1;
  BOOST_TEST(ms <= stop_bound.count(), "exited " << ms << " ms after SIGTERM");
  auto text = read_all(log);
  BOOST_TEST(WIFEXITED(status));
  BOOST_TEST(WEXITSTATUS(status) == 0, text);
  BOOST_TEST(text.find("stopping (SIGTERM)") != std::string::npos, text);
  BOOST_TEST(text.find("stopped") != std::string::npos, text);
  BOOST_TEST(text.find("cut short") == std::string::npos, text);
  BOOST_TEST(soma::forwards(soma::store{served, {.read_only = true}}, "kept").size() == 5u);
  BOOST_TEST(!soma::standing(soma::store{dir.string(), {.read_only = true}}).empty());
  writer.reset(); // its server is gone: it says so on stderr, never hangs
  std::filesystem::remove_all(served);
  std::filesystem::remove_all(dir);
  std::filesystem::remove(log);
}

BOOST_AUTO_TEST_CASE(a_spawned_worker_stops_within_the_bound_when_the_program_that_spawned_it_is_killed) {
  auto base = std::filesystem::temp_directory_path() / ("soma-lifeline-" + std::to_string(getpid()));
  auto out = base.string() + ".out", log = base.string() + ".log";
  // The worker's parent is killed: it is then this process's child, to be
  // reaped here.
  BOOST_REQUIRE(prctl(PR_SET_CHILD_SUBREAPER, 1) == 0);
  struct orphan {
    pid_t pid = -1;
    ~orphan() {
      if (pid > 0) {
        kill(pid, SIGKILL);
        waitpid(pid, nullptr, 0);
      }
      prctl(PR_SET_CHILD_SUBREAPER, 0);
    }
  } worker;
  logged_process parent{{"sh", "-c", "exec '" SOMA_SPAWNING_PARENT "' '" + node_program + "' '" + test_nodes
                                       + "' 2>'" + log + "'"},
                        out};
  auto printed = wait_for_line(out, "\n");
  BOOST_REQUIRE_MESSAGE(!printed.empty(), "the parent printed no worker: " + read_all(log));
  worker.pid = std::stoi(printed);
  BOOST_REQUIRE(kill(parent.pid, SIGKILL) == 0);
  BOOST_REQUIRE(waitpid(parent.pid, nullptr, 0) == parent.pid);
  parent.pid = -1;
  auto began = clock_type::now();
  int status = reaped_within(worker.pid, milliseconds(10000));
  auto ms = std::chrono::duration_cast<milliseconds>(clock_type::now() - began).count();
  BOOST_REQUIRE_MESSAGE(status != -1, "the worker still runs 10 s after its parent was killed: " + read_all(log));
  worker.pid = -1;
  BOOST_TEST(ms <= stop_bound.count(), "exited " << ms << " ms after its parent was killed");
  auto text = read_all(log);
  BOOST_TEST(WIFEXITED(status));
  BOOST_TEST(WEXITSTATUS(status) == 0, text);
  BOOST_TEST(text.find("stopping (the program that spawned it is gone)") != std::string::npos, text);
  BOOST_TEST(text.find("stopped") != std::string::npos, text);
  std::filesystem::remove(out);
  std::filesystem::remove(log);
}

BOOST_AUTO_TEST_CASE(a_client_whose_worker_is_stopped_exits_without_hanging) {
  auto log = std::filesystem::temp_directory_path() / ("soma-hold-log-" + std::to_string(getpid()));
  node_process worker{{"sh", "-c", "exec '" + node_program + "' --nodes '" + test_nodes + "' 2>'"
                                     + log.string() + "'"}};
  // The client: another process, which connects, runs a forward, holds the
  // session, and then returns from main while the worker is stopped.
  auto address = "127.0.0.1:" + std::to_string(worker.port);
  auto said = log.string() + ".client";
  pid_t client = fork();
  BOOST_REQUIRE(client >= 0);
  if (client == 0) {
    setenv("SOMA_CLIENT_HOLD_MS", "1500", 1);
    int out = ::open(said.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (out < 0 || dup2(out, STDOUT_FILENO) < 0)
      _exit(126);
    execl(SOMA_REMOTE_CLIENT, SOMA_REMOTE_CLIENT, address.c_str(), nullptr);
    _exit(127);
  }
  // Stopped once the client has its session and its first forward came
  // back (it says `holding`): its next forward goes to a stopped worker,
  // fails, and it exits 1. (The worker's "session opened" comes before the
  // client hears so: stopped then, a loaded client's connect timed out.)
  auto text = wait_for_line(said, "holding");
  BOOST_REQUIRE_MESSAGE(text.find("holding") != std::string::npos, "the client said: " << text);
  BOOST_REQUIRE(kill(worker.pid, SIGSTOP) == 0);
  auto stopped = clock_type::now();
  int status = reaped_within(client, milliseconds(15000));
  auto ms = std::chrono::duration_cast<milliseconds>(clock_type::now() - stopped).count();
  kill(worker.pid, SIGCONT);
  BOOST_REQUIRE_MESSAGE(status != -1, "the client still ran 15 s after its worker stopped");
  BOOST_TEST(ms <= 800 + soma::detection_bound(sys.config()).count() + 2000,
             "the client exited " << ms << " ms after its worker stopped");
  BOOST_TEST(WIFEXITED(status));
  BOOST_TEST(WEXITSTATUS(status) == 1, "the client's forward to a stopped worker did not fail: " << read_all(said));
  std::filesystem::remove(log);
  std::filesystem::remove(said);
}

BOOST_AUTO_TEST_SUITE_END()
