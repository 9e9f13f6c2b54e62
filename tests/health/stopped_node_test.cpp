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
#include "soma/store/standing.hpp"

using namespace std::chrono_literals;
using namespace soma_test;
namespace health = soma::health;

namespace {

const std::string node_program = SOMA_NODE_PROGRAM;

std::unique_ptr<child> node(const std::vector<std::string>& args) {
  std::vector<std::string> all{node_program};
  all.insert(all.end(), args.begin(), args.end());
  return std::make_unique<child>(std::move(all));
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
  // The two workers report through a served store, as a fleet does: a
  // process stopped mid-commit of a local store would hold its write lock,
  // and the other's readings with it.
  auto server = node({"--serve-store", dir});
  auto port = server->line(30s);
  BOOST_REQUIRE(port);
  auto address = "soma://127.0.0.1:" + *port;
  auto a = node({"--store", address, "--reporting", "0.1"});
  auto b = node({"--store", address, "--reporting", "0.1"});
  BOOST_REQUIRE(a->line(30s)); // its port: it is listening, and reporting
  BOOST_REQUIRE(b->line(30s));
  auto stopped = id_of(*a), going = id_of(*b);
  soma::store s{dir, {.read_only = true}};
  // 20 x 0.1 s quiet (a loaded machine may hold one reading for a few
  // hundred ms), then 1 s pending before it fires.
  auto book = health::rulebook::shipped();
  book.set("quiet_machine", "over", 20);
  book.set("quiet_machine", "for", 1);
  auto quiet = [&](std::optional<std::int64_t> at = std::nullopt) {
    std::vector<health::opinion> out;
    for (auto& op : health::judge(s, book, {.at_us = at}).opinions)
      if (op.rule == "quiet_machine")
        out.push_back(op);
    return out;
  };
  BOOST_REQUIRE(store_shows(dir, [&] { return soma::standing(s).size() == 2; }, 30s));
  BOOST_TEST(quiet().empty());

  a->kill(SIGSTOP);
  std::vector<health::opinion> seen;
  BOOST_REQUIRE(store_shows(dir, [&] { return !(seen = quiet()).empty(); }, 30s));
  BOOST_REQUIRE_EQUAL(seen.size(), 1u);
  BOOST_TEST(seen[0].subject == "machine " + stopped);
  BOOST_TEST(seen[0].threshold == 2.0, boost::test_tools::tolerance(1e-9));
  BOOST_TEST(seen[0].threshold_is == "20 x its reporting interval 0.1 s");
  auto since = seen[0].since_us;
  BOOST_REQUIRE(store_shows(dir, [&] {
    auto now = quiet();
    return !now.empty() && (seen = now)[0].state == health::status::firing;
  }, 30s));
  BOOST_TEST(seen[0].since_us == since);
  // By the other worker's readings (the clock it is held to): pending at
  // each one before since + for, firing from the first at or after it.
  auto rs = soma::readings(s, going);
  std::size_t pending = 0, firing = 0;
  for (auto& r : rs) {
    if (r.when_us <= since)
      continue;
    auto then = quiet(r.when_us);
    BOOST_REQUIRE_EQUAL(then.size(), 1u);
    auto want = r.when_us - since >= 1'000'000 ? health::status::firing : health::status::pending;
    BOOST_TEST((then[0].state == want), then[0].says() << " as of " << r.when_us);
    (want == health::status::firing ? firing : pending) += 1;
  }
  BOOST_TEST(pending > 0u); // ten readings of b a second: some in the second it was pending
  BOOST_TEST(firing > 0u);

  a->kill(SIGCONT);
  BOOST_REQUIRE(store_shows(dir, [&] { return quiet().empty(); }, 30s));
  for (auto* c : {a.get(), b.get(), server.get()})
    c->kill(SIGTERM);
  BOOST_TEST(WEXITSTATUS(a->wait()) == 0);
  BOOST_TEST(WEXITSTATUS(b->wait()) == 0);
  BOOST_TEST(WEXITSTATUS(server->wait()) == 0);
}

BOOST_AUTO_TEST_SUITE_END()
