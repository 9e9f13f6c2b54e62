// A soma-node whose served store (--store soma://) cannot be reached keeps
// trying with a bounded backoff, says each failure, serves slices
// meanwhile, drops and counts its readings, and reports once the store is
// there; SIGTERM stops it within its bound while it tries; many workers
// started at once against one served store all end up reporting.

#include <boost/test/unit_test.hpp>

#include <chrono>
#include <cstdio>
#include <memory>
#include <regex>
#include <string>
#include <vector>

#include <httplib.h>

#include "../store/scratch.hpp"
#include "remote_fixture.hpp"
#include "server_port.hpp"
#include "soma/store/readings.hpp"
#include "soma/store/standing.hpp"

using namespace soma_test;
using clock_type = std::chrono::steady_clock;
using std::chrono::milliseconds;

namespace {

/// The most a soma-node's stop may take (docs/remote.md): --stop-within's
/// default of 1.5 s, plus what cutting short costs.
constexpr milliseconds stop_bound{2000};

/// `args` as one sh word each (none holds a quote), stderr into `log`.
std::vector<std::string> logging(const std::vector<std::string>& args, const std::string& log) {
  std::string line = "exec";
  for (auto& a : args)
    line += " '" + a + "'";
  return {"sh", "-c", line + " 2>'" + log + "'"};
}

/// How many times `part` is in `text`.
std::size_t count_of(const std::string& text, const std::string& part) {
  std::size_t n = 0;
  for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + 1))
    ++n;
  return n;
}

/// What `soma ARGS` prints on stdout.
std::string soma_says(const std::string& args) {
  auto* p = popen((std::string{SOMA_CLI} + " " + args + " 2>/dev/null").c_str(), "r");
  std::string text;
  char buf[512];
  while (p && std::fgets(buf, sizeof buf, p))
    text += buf;
  if (p)
    pclose(p);
  return text;
}

/// The value of `family` in a scrape of `url` (http://127.0.0.1:PORT/metrics); -1 when absent.
double scraped(const std::string& url, const std::string& family) {
  static const std::regex parts{R"(http://([^:/]+):([0-9]+)(/.*))"};
  std::smatch m;
  if (!std::regex_match(url, m, parts))
    return -1;
  httplib::Client c{m[1].str(), std::stoi(m[2])};
  c.set_connection_timeout(2, 0);
  c.set_read_timeout(5, 0);
  auto got = c.Get(m[3].str());
  if (!got || got->status != 200)
    return -1;
  std::smatch v;
  if (!std::regex_search(got->body, v, std::regex{"\n" + family + " ([0-9.e+]+)\n"}))
    return -1;
  return std::stod(v[1]);
}

} // namespace

BOOST_FIXTURE_TEST_SUITE(store_retry, system_fixture)

BOOST_AUTO_TEST_CASE(a_worker_started_before_its_store_serves_meanwhile_and_reports_once_it_is_there) {
  scratch dir;
  auto port = server_port();
  auto address = "soma://127.0.0.1:" + std::to_string(port);
  auto log = dir / "worker.log";
  node_process worker{logging({node_program, "--nodes", test_nodes, "--store", address, "--reporting",
                               "0.2", "--metrics", "127.0.0.1:0"},
                              log)};
  // It tries, fails, says so (naming the store and why), and tries again.
  std::string text;
  BOOST_REQUIRE_MESSAGE(within(milliseconds(10000), [&] {
                          return count_of(text = read_all(log), "readings: cannot reach the served store "
                                                                  + address) >= 2;
                        }),
                        "no two failed tries within 10 s:\n" << text);
  BOOST_TEST(text.find("trying again in") != std::string::npos, text);
  BOOST_TEST(text.find("listening on 127.0.0.1:" + std::to_string(worker.port)) != std::string::npos, text);

  // Meanwhile it serves: a session opens and a slice runs there.
  {
    auto w1 = soma::worker::connect(sys, "127.0.0.1:" + std::to_string(worker.port));
    auto g = soma::graph::somatize(sys, Inc{}.named("a").at("w1"));
    BOOST_TEST(g.forward(1, {.broker = soma::broker::embedded({{"w1", w1}})}) == 2);
  }
  // Its readings meanwhile are dropped and counted, where a scraper sees them.
  static const std::regex metrics_line{R"(metrics at (http://[^ ]+/metrics)\n)"};
  std::smatch m;
  BOOST_REQUIRE_MESSAGE(std::regex_search(text = read_all(log), m, metrics_line), text);
  auto url = m[1].str();
  BOOST_TEST(within(milliseconds(10000), [&] { return scraped(url, "soma_node_readings_dropped_total") >= 1; }));
  BOOST_TEST(scraped(url, "soma_node_readings_total") == 0.0);

  // The store's server starts on that address: within a deadline the
  // worker's readings are there, and its log says it reached the store.
  auto served_dir = dir / "served";
  auto server_log = dir / "server.log";
  node_process server{logging({node_program, "--serve-store", served_dir, "--listen",
                               "127.0.0.1:" + std::to_string(port)},
                              server_log)};
  auto id_part = "-" + std::to_string(worker.pid) + "\"";
  std::string standing;
  BOOST_TEST_MESSAGE("waiting for " << id_part << " in soma standing");
  BOOST_REQUIRE_MESSAGE(within(milliseconds(20000), [&] {
                          standing = soma_says("standing --store '" + served_dir + "' --json");
                          return standing.find(id_part) != std::string::npos;
                        }),
                        "the worker's readings were not in the served store within 20 s:\n"
                          << standing << "\nits log:\n" << read_all(log));
  text = wait_for_line(log, "readings: reached " + address + "; ");
  static const std::regex reached{"readings: reached " + std::string{address}
                                  + "; ([0-9]+) readings? dropped while it was unreachable\n"};
  BOOST_REQUIRE_MESSAGE(std::regex_search(text, m, reached), text);
  BOOST_TEST(std::stoi(m[1]) >= 1);
  BOOST_TEST(scraped(url, "soma_node_readings_dropped_total") == std::stod(m[1]));
  BOOST_TEST(within(milliseconds(10000), [&] { return scraped(url, "soma_node_readings_total") >= 1; }));
  // One line per failed try, never one per dropped reading.
  BOOST_TEST(count_of(text, "readings: cannot reach") <= count_of(text, "trying again in"));

  // Its server stopped and started again, it says so and reports again.
  BOOST_REQUIRE(kill(server.pid, SIGTERM) == 0);
  BOOST_REQUIRE(reaped_within(server.pid, milliseconds(10000)) != -1);
  server.pid = -1;
  BOOST_REQUIRE_MESSAGE(within(milliseconds(15000), [&] {
                          return read_all(log).find("trying again in", text.size()) != std::string::npos;
                        }),
                        read_all(log));
  node_process again{logging({node_program, "--serve-store", served_dir, "--listen",
                              "127.0.0.1:" + std::to_string(port)},
                             server_log)};
  text = wait_for_line(log, "readings: reporting to " + address + " again; ");
  BOOST_TEST(text.find("readings: reporting to " + address + " again; ") != std::string::npos, text);
  BOOST_TEST_MESSAGE("the worker's log:\n" << text);
}

BOOST_AUTO_TEST_CASE(sigterm_stops_a_worker_and_a_claimant_within_the_bound_while_they_try) {
  scratch dir;
  auto address = "soma://127.0.0.1:" + std::to_string(server_port());
  struct {
    std::vector<std::string> args;
    std::string says;
  } cases[] = {
    {{node_program, "--store", address, "--reporting", "0.2"}, "readings: cannot reach the served store"},
    {{node_program, "--nodes", test_nodes, "--claim", "sq", "--store", address},
     "claims: cannot reach the served store"},
  };
  for (auto& c : cases) {
    BOOST_TEST_CONTEXT(c.args.back() << " " << c.says) {
      auto log = dir / "node.log";
      node_process node{logging(c.args, log)};
      // Well into its tries: past the first waits.
      std::string text;
      BOOST_REQUIRE_MESSAGE(within(milliseconds(10000), [&] { return count_of(text = read_all(log), c.says) >= 3; }),
                            text);
      auto began = clock_type::now();
      BOOST_REQUIRE(kill(node.pid, SIGTERM) == 0);
      int status = reaped_within(node.pid, milliseconds(10000));
      auto ms = std::chrono::duration_cast<milliseconds>(clock_type::now() - began).count();
      BOOST_REQUIRE_MESSAGE(status != -1, "still running 10 s after SIGTERM");
      node.pid = -1;
      text = read_all(log);
      // Its log says when it heard the signal and when it stopped.
      BOOST_TEST(ms <= stop_bound.count(), "exited " << ms << " ms after SIGTERM; its log:\n" << text);
      BOOST_TEST(WIFEXITED(status));
      BOOST_TEST(WEXITSTATUS(status) == 0, text);
      BOOST_TEST(text.find("stopping (SIGTERM)") != std::string::npos, text);
      BOOST_TEST(text.find("cut short") == std::string::npos, text);
    }
  }
}

BOOST_AUTO_TEST_CASE(what_no_try_can_mend_exits_2_at_once) {
  scratch dir;
  struct {
    std::vector<std::string> args;
    std::string says;
  } cases[] = {
    {{node_program, "--store", "soma://nonsense"}, "a served store is soma://HOST:PORT"},
    {{node_program, "--store", "soma://127.0.0.1:1", "--tls-cert", dir / "none.pem", "--tls-key",
      dir / "none.key", "--tls-ca", dir / "ca.pem"},
     "cannot read the TLS file"},
    {{"env", "SOMA_TLS_CERT=" + dir / "c.pem", node_program, "--store", "soma://127.0.0.1:1"},
     "reaches a served store with its own TLS files"},
  };
  for (auto& c : cases) {
    BOOST_TEST_CONTEXT(c.says) {
      auto log = dir / "node.log";
      auto began = clock_type::now();
      logged_process p{logging(c.args, log), dir / "out"};
      int status = reaped_within(p.pid, milliseconds(10000));
      BOOST_REQUIRE(status != -1);
      p.pid = -1;
      BOOST_TEST((clock_type::now() - began < std::chrono::seconds(5)));
      auto text = read_all(log);
      BOOST_TEST(WEXITSTATUS(status) == 2, text);
      BOOST_TEST(text.find(c.says) != std::string::npos, text);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_FIXTURE_TEST_SUITE(store_retry_many, system_fixture)

BOOST_AUTO_TEST_CASE(a_hundred_workers_started_at_once_before_their_served_store_all_report) {
  constexpr int workers = 100;
  scratch dir;
  auto served_dir = dir / "served";
  auto port = server_port();
  auto address = "soma://127.0.0.1:" + std::to_string(port);
  // Started together (not one after another's port line), before their
  // store's server, each with its log; each is reaped (SIGTERM, then waited
  // for) however the test ends.
  std::vector<std::unique_ptr<logged_process>> started;
  std::vector<std::string> ids;
  auto log_of = [&](int i) { return dir / ("w" + std::to_string(i) + ".log"); };
  auto began = clock_type::now();
  for (int i = 0; i < workers; ++i) {
    started.push_back(std::make_unique<logged_process>(
      logging({node_program, "--store", address, "--reporting", "0.5"}, log_of(i)),
      dir / ("w" + std::to_string(i) + ".out")));
    ids.push_back("-" + std::to_string(started.back()->pid));
  }
  // Every one has failed to reach it, and keeps trying.
  int failing = 0;
  bool all_failed = within(milliseconds(30000), [&] {
    failing = 0;
    for (int i = 0; i < workers; ++i)
      failing += read_all(log_of(i)).find("readings: cannot reach") != std::string::npos;
    return failing == workers;
  });
  BOOST_REQUIRE_MESSAGE(all_failed, failing << " of " << workers << " workers said a failed try within 30 s");
  auto failed_after = std::chrono::duration_cast<milliseconds>(clock_type::now() - began).count();
  // The server comes up: all of them reach it and report.
  auto starting = clock_type::now();
  node_process server{logging({node_program, "--serve-store", served_dir, "--listen",
                               "127.0.0.1:" + std::to_string(port)},
                              dir / "server.log")};
  auto served_at = clock_type::now();
  BOOST_TEST_MESSAGE("the server printed its port "
                     << std::chrono::duration_cast<milliseconds>(served_at - starting).count()
                     << " ms after it was started");
  std::size_t in = 0;
  auto all_in = [&] {
    auto latest = soma::standing(soma::store{served_dir, {.read_only = true}});
    in = 0;
    for (auto& id : ids)
      for (auto& [machine, r] : latest)
        if (machine.ends_with(id)) {
          ++in;
          break;
        }
    return in == ids.size();
  };
  bool all = within(milliseconds(60000), all_in);
  auto took = std::chrono::duration_cast<milliseconds>(clock_type::now() - served_at).count();
  // A reading is in the store as soon as the server committed it; the
  // worker says it reached the store once the answer came back, a moment
  // later (on a loaded machine, long enough for a test to look between).
  std::size_t failed_tries = 0, reached = 0;
  auto looking = clock_type::now();
  (void)within(startup_deadline, [&] {
    failed_tries = reached = 0;
    for (int i = 0; i < workers; ++i) {
      auto text = read_all(log_of(i));
      failed_tries += count_of(text, "readings: cannot reach");
      reached += count_of(text, "readings: reached " + address);
    }
    return reached >= static_cast<std::size_t>(workers);
  });
  BOOST_TEST_MESSAGE("all " << workers << " failed within " << failed_after << " ms of their start; "
                            << in << " in standing " << took << " ms after the server started; "
                            << failed_tries << " failed tries logged in all, " << reached
                            << " said they reached it, the last "
                            << std::chrono::duration_cast<milliseconds>(clock_type::now() - looking).count()
                            << " ms after all were in standing");
  BOOST_TEST(all, in << " of " << workers << " workers reporting 60 s after the server started");
  BOOST_TEST(reached == static_cast<std::size_t>(workers));
  // Every one is still running: none gave up.
  for (auto& p : started) {
    int status = 0;
    BOOST_TEST(waitpid(p->pid, &status, WNOHANG) == 0, "worker " << p->pid << " exited: " << status);
  }
  // Stopped together, each within its bound.
  for (auto& p : started)
    kill(p->pid, SIGTERM);
  auto stopping = clock_type::now();
  for (auto& p : started) {
    BOOST_TEST(reaped_within(p->pid, milliseconds(15000)) != -1, "worker " << p->pid << " still runs");
    p->pid = -1;
  }
  BOOST_TEST_MESSAGE("all " << workers << " stopped "
                            << std::chrono::duration_cast<milliseconds>(clock_type::now() - stopping).count()
                            << " ms after SIGTERM");
  // The server too, within its bound, its clients gone.
  BOOST_REQUIRE(kill(server.pid, SIGTERM) == 0);
  stopping = clock_type::now();
  BOOST_TEST(reaped_within(server.pid, milliseconds(15000)) != -1, "the server still runs");
  server.pid = -1;
  BOOST_TEST_MESSAGE("the server stopped "
                     << std::chrono::duration_cast<milliseconds>(clock_type::now() - stopping).count()
                     << " ms after SIGTERM");
}

BOOST_AUTO_TEST_SUITE_END()
