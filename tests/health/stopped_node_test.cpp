// A real soma-node reporting into a store, SIGSTOPped: the quiet-machine
// opinion is pending once its readings are over the threshold behind the
// other writer's, fires after its `for`, and clears after SIGCONT; replayed
// afterwards, that is one episode at the edges its readings give.

#include <boost/test/unit_test.hpp>

#include <csignal>
#include <memory>
#include <unistd.h>

#include "child.hpp"
#include "making.hpp"
#include "scratch.hpp"
#include "waiting.hpp"
#include "soma/health/replay.hpp"
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

struct edges {
  std::int64_t pending_us = 0, firing_us = 0, cleared_us = 0, to_us = 0;
  double pending_value = 0, last_value = 0;
};

// quiet_machine of `id` at 20 x its interval and `for` 1 s, worked out from
// the readings read back, at steps of `every_us` from `from_us` to the
// first at or past the newest reading: each time it held, from the step it
// began to the step it cleared (to_us: that last step).
std::vector<edges> expected_quiet(const soma::store& s, const std::string& id,
                                  std::int64_t from_us, std::int64_t every_us) {
  std::vector<soma::reading> all, mine = soma::readings(s, id);
  std::int64_t newest = 0;
  for (auto& [other, r] : soma::standing(s)) {
    auto rs = soma::readings(s, other);
    all.insert(all.end(), rs.begin(), rs.end());
    newest = std::max(newest, r.when_us);
  }
  std::vector<edges> out;
  bool holding = false;
  for (auto t = from_us; t < newest + every_us; t += every_us) {
    std::int64_t latest_all = 0;
    const soma::reading* latest = nullptr;
    for (auto& r : all)
      latest_all = r.when_us <= t ? std::max(latest_all, r.when_us) : latest_all;
    for (auto& r : mine)
      if (r.when_us <= t && (!latest || r.when_us > latest->when_us))
        latest = &r;
    bool holds = latest && latest_all - latest->when_us > 20 * latest->every_us;
    auto quiet_s = latest ? static_cast<double>(latest_all - latest->when_us) / 1e6 : 0;
    if (holds && !holding)
      out.push_back({t, 0, 0, 0, quiet_s, quiet_s});
    if (holds && out.back().firing_us == 0
        && latest_all - (latest->when_us + 20 * latest->every_us) >= 1'000'000)
      out.back().firing_us = t;
    if (holds)
      out.back().last_value = quiet_s;
    if (!holds && holding)
      out.back().cleared_us = t;
    if (!out.empty())
      out.back().to_us = t;
    holding = holds;
  }
  return out;
}

// Replayed over the stop, a step each 10 ms: exactly one episode of the
// stopped machine, at the steps the readings read back give for a threshold
// of 20 readings and a `for` of 1 s. (Live, it was seen firing at one of the
// other's readings; a step may fall past the stopped one's next reading
// after SIGCONT, so whether it fired at a step is the readings' to say too.)
void replayed_as_read_back(const soma::store& s, const health::rulebook& book,
                           const std::string& stopped, std::int64_t since) {
  auto edges = expected_quiet(s, stopped, since - 2'000'000, 10'000);
  BOOST_REQUIRE_EQUAL(edges.size(), 1u);
  auto r = health::replay(s, book, {.from_us = since - 2'000'000, .to_us = edges[0].to_us,
                                    .every_us = 10'000});
  std::vector<health::episode> found;
  for (auto& ep : r.episodes)
    if (ep.rule == "quiet_machine" && ep.subject == "machine " + stopped)
      found.push_back(ep);
  BOOST_REQUIRE_EQUAL(found.size(), 1u);
  BOOST_TEST(found[0].since_us == since);
  BOOST_TEST(found[0].pending_us == edges[0].pending_us);
  BOOST_TEST(found[0].pending_value == edges[0].pending_value);
  BOOST_TEST(found[0].firing_us.value_or(0) == edges[0].firing_us);
  BOOST_REQUIRE(found[0].cleared_us);
  BOOST_TEST(*found[0].cleared_us == edges[0].cleared_us);
  BOOST_TEST(found[0].last_value == edges[0].last_value);
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

  replayed_as_read_back(s, book, stopped, since);
}

BOOST_AUTO_TEST_SUITE_END()
