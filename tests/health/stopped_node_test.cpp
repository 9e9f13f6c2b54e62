// A real soma-node reporting into a store, SIGSTOPped: the quiet-machine
// opinion is pending once its readings are over the threshold behind the
// other writer's, fires after its `for`, and clears after SIGCONT.

#include <boost/test/unit_test.hpp>

#include <csignal>
#include <memory>
#include <unistd.h>

#include "child.hpp"
#include "making.hpp"
#include "scratch.hpp"
#include "waiting.hpp"

using namespace std::chrono_literals;
using namespace soma_test;
namespace health = soma::health;

namespace {

std::unique_ptr<child> reporting_node(const std::string& dir) {
  return std::make_unique<child>(std::vector<std::string>{
    SOMA_NODE_PROGRAM, "--store", dir, "--reporting", "0.1", "--listen", "127.0.0.1:0"});
}

std::string id_of(const child& c) {
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  return std::string{host} + "-" + std::to_string(c.pid());
}

} // namespace

BOOST_AUTO_TEST_SUITE(stopped_node)

BOOST_AUTO_TEST_CASE(a_sigstopped_soma_node_is_quiet_pending_then_firing_and_clears_after_sigcont) {
  scratch tmp;
  auto dir = tmp / "s";
  { soma::store make{dir}; }
  auto a = reporting_node(dir), b = reporting_node(dir);
  BOOST_REQUIRE(a->line(30s)); // its port: it is listening, and reporting
  BOOST_REQUIRE(b->line(30s));
  auto stopped = id_of(*a);
  soma::store s{dir, {.read_only = true}};
  // 20 x 0.1 s quiet (a loaded machine's disk may hold a reading's commit
  // for a few hundred ms), then 1 s pending before it fires.
  auto book = health::rulebook::shipped();
  book.set("quiet_machine", "over", 20);
  book.set("quiet_machine", "for", 1);
  auto quiet = [&] {
    std::vector<health::opinion> out;
    for (auto& op : health::judge(s, book).opinions)
      if (op.rule == "quiet_machine")
        out.push_back(op);
    return out;
  };
  BOOST_REQUIRE(store_shows([&] { return soma::standing(s).size() == 2; }, 30s));
  BOOST_TEST(quiet().empty());

  a->kill(SIGSTOP);
  std::vector<health::opinion> seen;
  BOOST_REQUIRE(store_shows([&] { return !(seen = quiet()).empty(); }, 30s));
  BOOST_REQUIRE_EQUAL(seen.size(), 1u);
  BOOST_TEST(seen[0].subject == "machine " + stopped);
  BOOST_TEST(seen[0].threshold == 2.0, boost::test_tools::tolerance(1e-9));
  BOOST_TEST(seen[0].threshold_is == "20 x its reporting interval 0.1 s");
  // Seen within 10 ms of the condition beginning, by b's readings every 0.1 s:
  // still pending (it must hold for 1 s).
  BOOST_TEST(seen[0].state == health::status::pending, seen[0].says());
  auto since = seen[0].since_us;
  BOOST_REQUIRE(store_shows([&] {
    auto now = quiet();
    return !now.empty() && (seen = now)[0].state == health::status::firing;
  }, 30s));
  // It fired by the writers' clocks at least 1 s after it began.
  BOOST_TEST(seen[0].since_us == since);
  BOOST_TEST(seen[0].value >= 2.0 + 1.0, seen[0].says());

  a->kill(SIGCONT);
  BOOST_REQUIRE(store_shows([&] { return quiet().empty(); }, 30s));
  a->kill(SIGTERM);
  b->kill(SIGTERM);
  BOOST_TEST(WEXITSTATUS(a->wait()) == 0);
  BOOST_TEST(WEXITSTATUS(b->wait()) == 0);
}

BOOST_AUTO_TEST_SUITE_END()
