// soma-node --claim: a cluster host runs a sweep with no program of its own,
// with a trial function from a node library; stopped mid-trial it lets the
// trial go within its stop bound; bad command lines are clear errors.

#include <boost/test/unit_test.hpp>

#include <sys/wait.h>

#include <chrono>
#include <memory>
#include <set>
#include <thread>

#include "../store/child.hpp"
#include "../remote/server_port.hpp"
#include "../store/scratch.hpp"
#include "soma/soma.hpp"

using namespace std::chrono_literals;
using soma_test::child;
using soma_test::scratch;

namespace {

// soma-node with its log (stderr) on the same pipe as its port line.
std::unique_ptr<child> soma_node(const std::string& args) {
  std::string command = "exec ";
  command.append(SOMA_NODE_PROGRAM).append(" ").append(args).append(" 2>&1");
  return std::make_unique<child>(std::vector<std::string>{"/bin/sh", "-c", command});
}

// Every line it prints until it exits (or the deadline passes).
std::string all_lines(child& c, std::chrono::milliseconds deadline = 60s) {
  auto by = std::chrono::steady_clock::now() + deadline;
  std::string out;
  while (auto l = c.line(std::chrono::duration_cast<std::chrono::milliseconds>(
           by - std::chrono::steady_clock::now())))
    out += *l + "\n";
  return out;
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

const std::string lib = SOMA_TRIAL_FUNCTIONS_LIB;

} // namespace

BOOST_AUTO_TEST_SUITE(node_claims)

BOOST_AUTO_TEST_CASE(two_soma_nodes_run_a_study_with_a_library_trial_function_and_exit_once_none_waits) {
  scratch tmp;
  auto dir = tmp / "s";
  {
    soma::store s{dir};
    std::vector<soma::values> xs;
    for (std::int64_t x = 0; x < 20; ++x)
      xs.push_back({{"x", x}});
    soma::add_trials(s, "sq", xs, "square");
  }
  auto args = "--claim sq --store " + dir + " --nodes " + lib + " --reporting 0.1";
  auto a = soma_node(args), b = soma_node(args);
  auto a_said = all_lines(*a), b_said = all_lines(*b);
  BOOST_TEST(WEXITSTATUS(a->wait()) == 0, a_said);
  BOOST_TEST(WEXITSTATUS(b->wait()) == 0, b_said);
  BOOST_TEST(has(a_said, "claiming trials of sq from " + dir + " with the trial function square"), a_said);
  BOOST_TEST(has(a_said, "stopping (no trial to claim)"), a_said);
  soma::store s{dir, {.read_only = true}};
  auto rows = soma::trials(s, "sq");
  BOOST_REQUIRE_EQUAL(rows.size(), 20u);
  std::set<std::string> by;
  for (auto& r : rows) {
    BOOST_TEST_CONTEXT("trial " << r.number) {
      BOOST_TEST(r.state == soma::trial_state::done);
      auto x = r.params.get<std::int64_t>("x");
      BOOST_TEST(r.result.get<std::int64_t>("y") == x * x);
      if (x > 0)
        BOOST_TEST(soma::forwards(s, r.run).size() == static_cast<std::size_t>(x));
      by.insert(r.claimant);
    }
  }
  // Both are machines of the fleet, claiming sq, with what they finished.
  auto latest = soma::standing(s);
  std::uint64_t counted = 0;
  for (auto& id : by) {
    BOOST_REQUIRE(latest.count(id));
    BOOST_TEST(latest[id].claims == "sq");
    counted += latest[id].trials;
  }
  BOOST_TEST(counted == 20u); // each claimant's last reading, written as it ended
}

BOOST_AUTO_TEST_CASE(a_soma_node_stopped_mid_trial_lets_it_go_and_exits_within_its_bound) {
  scratch tmp;
  auto dir = tmp / "s";
  soma::store s{dir};
  soma::add_trials(s, "h", {{{"x", std::int64_t{1}}}}, "hang");
  auto n = soma_node("--claim h --store " + dir + " --nodes " + lib + " --stop-within 1");
  // Its log says when it claimed the trial (after its port and "listening").
  std::optional<std::string> l;
  while ((l = n->line(30s)) && l->find("claimed trial 0 of h (attempt 1, run h.0)") == std::string::npos) {
  }
  BOOST_REQUIRE(l);
  BOOST_TEST(soma::trials(s, "h")[0].state == soma::trial_state::claimed);
  auto began = std::chrono::steady_clock::now();
  n->kill(SIGTERM);
  auto said = all_lines(*n, 10s);
  auto status = n->wait();
  auto took = std::chrono::steady_clock::now() - began;
  BOOST_TEST(took < 3s); // --stop-within 1, and the process's own exit
  BOOST_TEST(WEXITSTATUS(status) == 3, said); // cut short: the trial function never returned
  BOOST_TEST(has(said, "let go of the trial in hand"), said);
  auto rows = soma::trials(s, "h");
  BOOST_TEST(rows[0].state == soma::trial_state::waiting);
  BOOST_REQUIRE_EQUAL(rows[0].abandoned.size(), 1u);
  BOOST_TEST(rows[0].abandoned[0].why == "its soma-node stopped (SIGTERM) while it ran");
}

BOOST_AUTO_TEST_CASE(a_soma_node_claiming_from_a_served_store_not_there_yet_waits_and_claims_once_it_is) {
  scratch tmp;
  auto dir = tmp / "s";
  {
    soma::store s{dir};
    std::vector<soma::values> xs;
    for (std::int64_t x = 0; x < 5; ++x)
      xs.push_back({{"x", x}});
    soma::add_trials(s, "sq", xs, "square");
  }
  // A loopback port nothing listens on yet, where no client's own end can
  // be (server_port.hpp).
  int port = soma_test::server_port();
  auto address = "soma://127.0.0.1:" + std::to_string(port);
  auto n = soma_node("--claim sq --store " + address + " --nodes " + lib + " --reporting 0.1");
  // It waits, saying so at each try, and claims nothing meanwhile.
  std::string before;
  int tries = 0;
  while (tries < 2) {
    auto l = n->line(10s);
    BOOST_REQUIRE_MESSAGE(l, "no two failed tries within 10 s:\n" << before);
    before += *l + "\n";
    if (has(*l, "claims: cannot reach the served store " + address))
      ++tries;
  }
  BOOST_TEST(!has(before, "claimed trial"), before);
  BOOST_TEST(soma::trials(soma::store{dir, {.read_only = true}}, "sq")[0].state == soma::trial_state::waiting);
  // The store's server starts: it claims and runs every trial, and exits
  // once none waits.
  auto server = soma_node("--serve-store " + dir + " --listen 127.0.0.1:" + std::to_string(port));
  auto said = before + all_lines(*n);
  BOOST_TEST(WEXITSTATUS(n->wait()) == 0, said);
  BOOST_TEST(has(said, "claiming trials of sq from " + address + " with the trial function square"), said);
  BOOST_TEST(has(said, "claims: finished 5 trial(s) of sq; none waits"), said);
  server->kill(SIGTERM);
  BOOST_TEST(WEXITSTATUS(server->wait()) == 0);
  soma::store s{dir, {.read_only = true}};
  for (auto& r : soma::trials(s, "sq"))
    BOOST_TEST(r.state == soma::trial_state::done, "trial " << r.number);
}

BOOST_AUTO_TEST_CASE(bad_claim_command_lines_are_clear_errors) {
  scratch tmp;
  auto dir = tmp / "s";
  {
    soma::store s{dir};
    soma::add_trials(s, "plain", {{{"x", std::int64_t{1}}}});
  }
  struct {
    std::string args, says;
  } cases[] = {
    {"--claim plain", "--claim needs --store"},
    {"--claim a.b --store " + dir, "holds a '/', a '.' or a control character"},
    {"--claim nope --store " + dir + " --nodes " + lib, "has no study named 'nope'; it has 'plain'"},
    {"--claim plain --store " + dir + " --nodes " + lib,
     "give 2 trial functions ('square', 'hang') and the study 'plain' names none: say which with --trial NAME"},
    {"--claim plain --store " + dir + " --nodes " + lib + " --trial cube",
     "no --nodes library gives a trial function named 'cube'; they give 'square', 'hang'"},
    {"--claim plain --store " + dir, "no --nodes library gives a trial function to run the trials of 'plain'"},
    {"--trial square", "--trial names the trial function of --claim STUDY"},
  };
  for (auto& c : cases) {
    BOOST_TEST_CONTEXT(c.args) {
      auto n = soma_node(c.args);
      auto said = all_lines(*n, 20s);
      BOOST_TEST(WEXITSTATUS(n->wait()) == 2, said);
      BOOST_TEST(has(said, c.says), said);
    }
  }
  // Nothing was claimed by any of them.
  soma::store s{dir, {.read_only = true}};
  BOOST_TEST(soma::trials(s, "plain")[0].state == soma::trial_state::waiting);
}

BOOST_AUTO_TEST_SUITE_END()
