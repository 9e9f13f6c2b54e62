// Remote failures: a node that throws over there, a worker killed
// mid-forward, addresses nobody answers, a forward without a broker.

#include <boost/test/unit_test.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <sstream>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <caf/io/middleman.hpp>
#include <caf/scoped_actor.hpp>

#include "latch.hpp"
#include "remote_fixture.hpp"
#include "server_port.hpp"
#include "soma/remote/address.hpp"
#include "soma/remote/protocol.hpp"
#include "soma/wire/slice.hpp"


using namespace soma_test;
using clock_type = std::chrono::steady_clock;

BOOST_FIXTURE_TEST_SUITE(remote_failure, system_fixture)

BOOST_AUTO_TEST_CASE(a_remote_node_that_throws_says_failed_with_its_host_then_broke) {
  auto w1 = serving(sys);
  auto broker = soma::broker::embedded({{"w1", w1}});
  auto g = soma::graph::somatize(sys, Inc{}.named("a") >> Picky{}.named("picky").at("w1"));
  seen s;
  try {
    (void)g.forward(-5, {.watching = s.watcher(), .broker = broker});
    BOOST_FAIL("a throwing remote node gave a value");
  } catch (const soma::forward_error& e) {
    BOOST_TEST(e.node() == "picky");
    BOOST_TEST(e.error() == "no negatives: -4");
  }
  BOOST_TEST(names(s.facts) == (std::vector<std::string>{"ran", "machine", "failed", "left", "broke"}), said(s.facts));
  BOOST_TEST(s.facts[2]["host"] == "w1");
  BOOST_TEST(s.facts[2]["node"] == "picky");
  BOOST_TEST(s.facts[2]["error"] == "no negatives: -4");
  BOOST_TEST(s.facts[4]["node"] == "picky");
  BOOST_TEST(s.facts[4]["host"] == "w1");
  // Watched by nobody (its facts are not made), it fails the same: through
  // the slice's actor here, and from the caller's thread for a graph that
  // starts at the worker.
  auto unwatched_error = [&](auto& graph, int x) {
    try {
      (void)graph.forward(x, {.broker = broker});
    } catch (const soma::forward_error& e) {
      return e.node() + ": " + e.error();
    }
    return std::string{"a value"};
  };
  BOOST_TEST(unwatched_error(g, -5) == "picky: no negatives: -4");
  auto at_worker = soma::graph::somatize(sys, Picky{}.named("picky").at("w1"));
  BOOST_TEST(unwatched_error(at_worker, -5) == "picky: no negatives: -5");
  // The graph and the session stay usable.
  BOOST_TEST(g.forward(5, {.broker = broker}) == 6);
}

BOOST_AUTO_TEST_CASE(a_worker_killed_mid_forward_fails_it_promptly_and_a_replacement_serves) {
  auto w1 = serving(sys);
  auto broker = soma::broker::embedded({{"w1", w1}});
  latch hold;
  auto g = soma::graph::somatize(sys, hold.node().named("held").at("w1") >> Inc{}.named("c"));
  hold.release(0);
  BOOST_TEST(g.forward(0, {.broker = broker}) == 1);
  seen s;
  auto pending = std::async(std::launch::async, [&] {
    return g.forward(1, {.watching = s.watcher(), .broker = broker});
  });
  // Killed once the slice runs over there, and held there until then.
  hold.wait_taken(1);
  BOOST_REQUIRE(kill(w1.pid(), SIGKILL) == 0);
  auto killed = clock_type::now();
  BOOST_REQUIRE(pending.wait_for(std::chrono::seconds(10)) == std::future_status::ready);
  auto took = clock_type::now() - killed;
  BOOST_TEST((took < std::chrono::milliseconds(2000)), "the forward waited for the dead node");
  try {
    (void)pending.get();
    BOOST_FAIL("a forward whose worker died gave a value");
  } catch (const soma::forward_error& e) {
    std::string what = e.what();
    BOOST_TEST(e.node() == "held");
    BOOST_TEST(what.find("worker w1") != std::string::npos, what);
    BOOST_TEST(what.find("lost") != std::string::npos, what);
  }
  BOOST_TEST(names(s.facts).back() == "broke");
  BOOST_TEST(s.facts.back()["host"] == "w1");

  // Until it is replaced, the dead worker is an error that says so.
  try {
    (void)g.forward(0, {.broker = broker});
    BOOST_FAIL("a dead worker served");
  } catch (const soma::forward_error& e) {
    std::string what = e.what();
    BOOST_TEST(what.find("killed by signal 9") != std::string::npos, what);
    BOOST_TEST(what.find("broker::put") != std::string::npos, what);
  }
  broker.put("w1", serving(sys));
  BOOST_TEST(g.forward(0, {.broker = broker}) == 1);
}

BOOST_AUTO_TEST_CASE(a_connected_worker_that_comes_back_is_reconnected) {
  // A worker on a fixed port (one no client's own end can take:
  // server_port.hpp), killed and started again there.
  auto port = server_port();
  auto first = serving(sys, {"--listen", "127.0.0.1:" + std::to_string(port)});
  auto again = [&] {
    return serving(sys, {"--listen", "127.0.0.1:" + std::to_string(port)});
  };
  auto held = std::optional<soma::worker>{};
  auto w = soma::worker::connect(sys, first.address());
  auto broker = soma::broker::embedded({{"w1", w}});
  auto g = soma::graph::somatize(sys, Inc{}.named("a").at("w1"));
  BOOST_TEST(g.forward(1, {.broker = broker}) == 2);
  kill(first.pid(), SIGKILL);
  waitpid(first.pid(), nullptr, 0);
  // Whether or not its loss was noticed yet, the next forward fails: a dead
  // session ends the trip at once, and a reconnect finds nobody.
  BOOST_CHECK_THROW((void)g.forward(1, {.broker = broker}), soma::forward_error);
  held = again();
  // An actor asking the graph gets the reconnect too, made off the scheduler.
  caf::scoped_actor self{sys};
  soma::forward_options asked;
  asked.broker = broker;
  int answer = 0;
  self->request(g.actor(), std::chrono::seconds(20), soma::forward_atom::value, 1, asked)
    .receive([&](int x) { answer = x; }, [&](caf::error& e) { BOOST_FAIL(sys.render(e)); });
  BOOST_TEST(answer == 2);
  BOOST_TEST(g.forward(1, {.broker = broker}) == 2);
}

BOOST_AUTO_TEST_CASE(an_address_nobody_answers_is_a_clear_error_within_the_connect_time) {
  auto began = clock_type::now();
  try {
    (void)soma::worker::connect(sys, "127.0.0.1:1", soma::mode::project, {},
                                std::chrono::milliseconds(2000));
    BOOST_FAIL("connected to a closed port");
  } catch (const soma::worker_error& e) {
    std::string what = e.what();
    BOOST_TEST(what.find("cannot reach a worker at 127.0.0.1:1") != std::string::npos, what);
  }
  BOOST_TEST((clock_type::now() - began < std::chrono::seconds(3)));
  BOOST_CHECK_EXCEPTION((void)soma::worker::connect(sys, "no-port-here"), soma::worker_error,
                        [](const soma::worker_error& e) {
                          return std::string{e.what()}.find("not HOST:PORT") != std::string::npos;
                        });
}

BOOST_AUTO_TEST_CASE(a_program_that_is_not_a_worker_is_an_error_saying_so) {
  BOOST_CHECK_EXCEPTION((void)soma::worker::spawn(sys, {"false"}), soma::worker_error,
                        [](const soma::worker_error& e) {
                          std::string what = e.what();
                          return what.find("'false' exited with status 1 before it printed its port")
                                 != std::string::npos;
                        });
  BOOST_CHECK_EXCEPTION((void)soma::worker::spawn(sys, {"/no/such/soma-node"}), soma::worker_error,
                        [](const soma::worker_error& e) {
                          return std::string{e.what()}.find("cannot start '/no/such/soma-node'")
                                 != std::string::npos;
                        });
}

BOOST_AUTO_TEST_CASE(a_forward_without_a_broker_or_with_an_unknown_host_says_what_to_give) {
  auto g = soma::graph::somatize(sys, Inc{}.named("a").at("w9"));
  BOOST_CHECK_EXCEPTION((void)g.forward(1), soma::forward_error, [](const soma::forward_error& e) {
    return std::string{e.what()}.find("given no broker") != std::string::npos;
  });
  auto w1 = serving(sys);
  auto broker = soma::broker::embedded({{"w1", w1}});
  BOOST_CHECK_EXCEPTION((void)g.forward(1, {.broker = broker}), soma::forward_error,
                        [](const soma::forward_error& e) {
                          std::string what = e.what();
                          return what.find("no worker called w9 (it knows: w1)") != std::string::npos;
                        });
}

BOOST_AUTO_TEST_CASE(the_worker_logs_one_line_per_session_opened_and_closed) {
  auto log = std::filesystem::temp_directory_path() / ("soma-node-log-" + std::to_string(getpid()));
  {
    auto w = soma::worker::spawn(
      sys, {"sh", "-c", "exec '" + node_program + "' --nodes '" + test_nodes + "' 2>'" + log.string() + "'"});
    auto broker = soma::broker::embedded({{"w1", w}});
    auto g = soma::graph::somatize(sys, Inc{}.named("a").at("w1"));
    BOOST_TEST(g.forward(1, {.broker = broker}) == 2);
  } // the last handle stops the worker with SIGTERM (and waits for it)
  // Read once its last line is there (a deadline, never a fixed wait).
  auto s = wait_for_line(log, "stopped");
  BOOST_TEST(s.find("listening on 127.0.0.1:") != std::string::npos, s);
  BOOST_TEST(s.find("session 1 opened (mode project, client 127.0.0.1:") != std::string::npos, s);
  BOOST_TEST(s.find("session 1 closed") != std::string::npos, s);
  BOOST_TEST(s.find("stopping (SIGTERM)") != std::string::npos, s);
  std::filesystem::remove(log);
}

BOOST_AUTO_TEST_CASE(a_worker_with_a_client_connected_stops_cleanly_on_sigterm) {
  node_process worker{{node_program, "--nodes", test_nodes}};
  auto w1 = soma::worker::connect(sys, "127.0.0.1:" + std::to_string(worker.port));
  auto broker = soma::broker::embedded({{"w1", w1}});
  auto g = soma::graph::somatize(sys, Inc{}.named("a").at("w1"));
  BOOST_TEST(g.forward(1, {.broker = broker}) == 2);
  BOOST_REQUIRE(kill(worker.pid, SIGTERM) == 0);
  int status = -1;
  // Its stated bound (docs/remote.md): 2 s.
  auto until = clock_type::now() + std::chrono::seconds(2);
  while (clock_type::now() < until && waitpid(worker.pid, &status, WNOHANG) == 0)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  BOOST_REQUIRE_MESSAGE(status != -1, "the worker was still running 2 s after SIGTERM");
  worker.pid = -1; // reaped here
  BOOST_TEST(WIFEXITED(status));
  BOOST_TEST(WEXITSTATUS(status) == 0);
  // The client sees it go: the next forward fails saying so.
  BOOST_CHECK_THROW((void)g.forward(1, {.broker = broker}), soma::forward_error);
}

BOOST_AUTO_TEST_CASE(malformed_and_hostile_messages_never_crash_a_worker) {
  auto w1 = serving(sys);
  auto port = soma::parse_address(w1.address(), "test").port;
  // Raw bytes that are no CAF handshake at all.
  {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    BOOST_REQUIRE(connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
    std::string junk(4096, '\x7f');
    for (std::size_t i = 0; i < junk.size(); ++i)
      junk[i] = static_cast<char>(i * 131 + 7);
    (void)!write(fd, junk.data(), junk.size());
    close(fd);
  }
  // CAF messages a worker does not expect, and slices that are not slices.
  auto front = sys.middleman().remote_actor("127.0.0.1", port);
  BOOST_REQUIRE(front);
  caf::scoped_actor self{sys};
  caf::anon_send(*front, 42, std::string{"not a soma message"});
  std::string refused;
  self->request(*front, std::chrono::seconds(5), soma::detail::open_atom::value,
                caf::actor_cast<caf::actor>(self), std::string{"bogus"})
    .receive([](caf::actor&) {}, [&](caf::error& e) { refused = sys.render(e); });
  BOOST_TEST(refused.find("'project' or 'network'") != std::string::npos, refused);
  caf::actor session;
  self->request(*front, std::chrono::seconds(5), soma::detail::open_atom::value,
                caf::actor_cast<caf::actor>(self), std::string{"project"})
    .receive([&](caf::actor& x) { session = x; }, [&](caf::error&) {});
  BOOST_REQUIRE(session);
  for (std::string bad : {std::string{"not words"}, std::string(64, '\0'), std::string(16, '\xff')}) {
    std::string answer, output = "unset";
    self->request(session, std::chrono::seconds(5), soma::detail::slice_atom::value, bad,
                  std::string{"an input"})
      .receive([&](std::string& x, std::string& out) { answer = x; output = out; },
               [&](caf::error& e) { answer = sys.render(e); });
    auto result = soma::wire::decode_slice_answer(answer);
    BOOST_TEST((result.refused == soma::wire::refusal::bad_slice));
    BOOST_TEST(result.error.find("the slice did not decode") == 0u, result.error);
    BOOST_TEST(output.empty());
  }
  // A slice of soma's first wire format (its value inside the header) is
  // refused as a message the worker does not take, never crashed on.
  std::string old_form;
  self->request(session, std::chrono::seconds(5), soma::detail::slice_atom::value,
                std::string(64, '\0'))
    .receive([&](std::string&) { old_form = "answered"; },
             [&](caf::error& e) { old_form = sys.render(e); });
  BOOST_TEST(old_form.find("unexpected_message") != std::string::npos, old_form);
  std::string shipped;
  self->request(session, std::chrono::seconds(5), soma::detail::ship_atom::value,
                std::string{"0000"}, std::string{"\x7f" "ELF junk"})
    .receive([&](soma::detail::shipped_atom) { shipped = "taken"; },
             [&](caf::error& e) { shipped = sys.render(e); });
  BOOST_TEST(shipped.find("--accept-code") != std::string::npos, shipped);
  // The worker is still there and still serves.
  BOOST_TEST(kill(w1.pid(), 0) == 0);
  auto broker = soma::broker::embedded({{"w1", w1}});
  auto g = soma::graph::somatize(sys, Inc{}.named("a").at("w1"));
  BOOST_TEST(g.forward(1, {.broker = broker}) == 2);
}

BOOST_AUTO_TEST_SUITE_END()
