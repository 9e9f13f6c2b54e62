// Mutual TLS: a worker that demands it, a client it trusts, clients it does
// not; and a worker in its own network namespace reached through its own
// address (as root, where namespaces can be made).

#include <boost/test/unit_test.hpp>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <set>
#include <thread>

#include "remote_fixture.hpp"
#include "soma/remote/served_store.hpp"
#include "network.hpp"
#include "../store/child.hpp"
#include "../store/scratch.hpp"
#include "soma/remote/address.hpp"
#include "soma/recorder.hpp"
#include "soma/store/readers.hpp"
#include "soma/store/readings.hpp"
#include "soma/store/standing.hpp"
#include "soma/store/cache.hpp"
#include "soma/store/trials.hpp"

using namespace soma_test;
namespace fs = std::filesystem;

namespace {


} // namespace

BOOST_AUTO_TEST_SUITE(remote_tls)

BOOST_AUTO_TEST_CASE(a_trusted_client_runs_nodes_and_others_are_refused_before_any_runs) {
  BOOST_REQUIRE_MESSAGE(!openssl.empty(), "the openssl program is needed to make certificates");
  certificates certs;
  tls_system client{certs.as("client")};
  auto command = std::vector<std::string>{node_program, "--nodes", test_nodes};
  auto args = certs.worker_args();
  command.insert(command.end(), args.begin(), args.end());
  auto w1 = soma::worker::spawn(client.sys, command, soma::mode::project, certs.as("client"));
  auto broker = soma::broker::embedded({{"w1", w1}});
  auto g = soma::graph::somatize(client.sys, Twice{}.named("b").at("w1"));
  BOOST_TEST(g.forward(21, {.broker = broker}) == 42);

  // Other client processes (a process holds one CAF node id, so each
  // client is its own process, as on a cluster).
  // The trusted session stays open while they connect.
  auto client_run = [&](const std::string& args) {
    return sh(std::string{SOMA_REMOTE_CLIENT} + " " + w1.address() + " " + args);
  };
  BOOST_TEST(WEXITSTATUS(client_run(certs.file("client.pem") + " " + certs.file("client.key") + " "
                                    + certs.file("ca.pem")))
             == 0);
  // Signed by another CA: refused at the connection, before any node runs.
  BOOST_TEST(WEXITSTATUS(client_run(certs.file("rogue.pem") + " " + certs.file("rogue.key") + " "
                                    + certs.file("ca.pem")))
             == 3);
  // No certificate at all: refused too.
  BOOST_TEST(WEXITSTATUS(client_run("")) == 3);
  // The trusted client's connection lived through all of it: another
  // client's handshake, good or refused, no longer drops it
  // (actors/soma/detail/openssl_error_queue.cpp).
  BOOST_TEST(g.forward(1, {.broker = broker}) == 2);
}

BOOST_AUTO_TEST_CASE(certificates_made_by_soma_certs_carry_a_forward_and_a_foreign_ca_is_refused) {
  BOOST_REQUIRE_MESSAGE(!openssl.empty(), "the openssl program is needed to make certificates");
  auto dir = fs::temp_directory_path() / ("soma-certs-" + std::to_string(getpid()));
  struct gone {
    fs::path p;
    ~gone() { std::error_code e; fs::remove_all(p, e); }
  } cleanup{dir};
  auto certs = [&](const std::string& args) {
    return WEXITSTATUS(sh(std::string{SOMA_CERTS} + " " + args + " >/dev/null 2>&1"));
  };
  auto d = dir.string();
  BOOST_REQUIRE(certs("ca " + d) == 0);
  BOOST_REQUIRE(certs("issue " + d + " w1") == 0);
  BOOST_REQUIRE(certs("issue " + d + " client") == 0);
  BOOST_TEST(certs("issue " + d + " client") == 2); // never overwritten
  BOOST_TEST(certs("issue " + d + "-none x") == 2);  // no CA there
  BOOST_TEST(((fs::status(dir / "w1.key").permissions() & fs::perms::others_read) == fs::perms::none));
  soma::tls mine{d + "/client.pem", d + "/client.key", d + "/ca.pem"};
  tls_system client{mine};
  auto command = std::vector<std::string>{node_program, "--nodes", test_nodes, "--tls-cert",
                                          d + "/w1.pem", "--tls-key", d + "/w1.key", "--tls-ca",
                                          d + "/ca.pem"};
  auto w1 = soma::worker::spawn(client.sys, command, soma::mode::project, mine);
  auto broker = soma::broker::embedded({{"w1", w1}});
  auto g = soma::graph::somatize(client.sys, Twice{}.named("b").at("w1"));
  BOOST_TEST(g.forward(21, {.broker = broker}) == 42);
  // A client whose certificate another `soma-certs ca` signed is refused.
  auto other = d + "-other";
  BOOST_REQUIRE(certs("ca " + other) == 0);
  BOOST_REQUIRE(certs("issue " + other + " client") == 0);
  BOOST_TEST(WEXITSTATUS(sh(std::string{SOMA_REMOTE_CLIENT} + " " + w1.address() + " " + other
                            + "/client.pem " + other + "/client.key " + d + "/ca.pem"))
             == 3);
  std::error_code e;
  fs::remove_all(other, e);
}

BOOST_AUTO_TEST_CASE(a_worker_in_another_network_namespace_is_reached_over_mutual_tls,
                     *boost::unit_test::precondition(netns_available{})) {
  network_namespace net;
  auto& ns = net.ns;
  auto& subnet = net.subnet;
  certificates certs;
  // Beyond loopback a worker refuses to start without TLS.
  BOOST_TEST(sh("ip netns exec " + ns + " " + node_program + " --listen " + subnet + "2:0") != 0);

  tls_system client{certs.as("client")};
  auto command = std::vector<std::string>{"ip", "netns", "exec", ns, node_program, "--listen",
                                          subnet + "2:0", "--nodes", test_nodes};
  auto args = certs.worker_args();
  command.insert(command.end(), args.begin(), args.end());
  auto w1 = soma::worker::spawn(client.sys, command, soma::mode::project, certs.as("client"));
  BOOST_TEST(soma::parse_address(w1.address(), "test").host == subnet + "2");
  auto broker = soma::broker::embedded({{"w1", w1}});
  auto g = soma::graph::somatize(client.sys, Tokenize{}.named("tokenize")
                                               >> Embed{}.named("embed").at("w1")
                                               >> Score{}.named("score"));
  seen s;
  BOOST_TEST(g.forward("the quick brown fox", {.watching = s.watcher(), .broker = broker}) == 2.0);
  BOOST_TEST(names(s.facts) == (std::vector<std::string>{"ran", "machine", "ran", "left", "ran", "finished"}), said(s.facts));
  // Another namespace, the same machine: the machine's id is its hostname-pid.
  BOOST_TEST(std::string{s.facts[1]["id"].text()}.find("-" + std::to_string(w1.pid())) != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_recorder_a_worker_and_a_cached_node_write_through_soma_to_a_store_served_in_another_namespace,
                     *boost::unit_test::precondition(netns_available{})) {
  network_namespace net;
  certificates certs;
  auto args = certs.worker_args();
  scratch dir;
  auto served_dir = dir / "served";
  std::vector<std::string> command{"ip", "netns", "exec", net.ns, node_program, "--listen",
                                   net.subnet + "2:0", "--serve-store", served_dir};
  command.insert(command.end(), args.begin(), args.end());
  node_process server{command};
  auto address = "soma://" + net.subnet + "2:" + std::to_string(server.port);

  // Without TLS the server is not reached.
  {
    system_fixture plain;
    BOOST_TEST(!soma::open_store(plain.sys, address));
  }

  // A worker here, reporting over there, with its own certificate.
  std::vector<std::string> reporting{node_program, "--store", address, "--reporting", "0.2"};
  reporting.insert(reporting.end(), args.begin(), args.end());
  node_process reporter{reporting};

  auto client = certs.as("client");
  tls_system here{client};
  auto opened = soma::open_store(here.sys, address,
                                 {.tls_cert = client.cert, .tls_key = client.key, .tls_ca = client.ca});
  if (!opened)
    BOOST_FAIL(soma::describe(opened.error()));
  auto through = *opened;
  {
    auto g = seed_graph(here.sys);
    soma::recorder r{here.sys, through, {.run = "over-there"}};
    for (int i = 0; i < 3; ++i)
      (void)g.forward("the quick brown fox", {.watching = r});
  }
  // The recorder closed: its forwards committed. The reporter writes on its clock.
  soma::store landed{served_dir, {.read_only = true}};
  BOOST_TEST(soma::forwards(landed, "over-there").size() == 3u);
  BOOST_REQUIRE(eventually([&] { return soma::standing(landed).size() == 1u; }));
  auto st = soma::standing(landed);
  BOOST_TEST(st.begin()->first.ends_with("-" + std::to_string(reporter.pid)));

  // The soma command reads it through soma:// too, its TLS files from the environment.
  auto cli = std::string{SOMA_CLI} + " standing --store " + address;
  BOOST_TEST(sh(cli) != 0); // no certificate: refused, exit 2
  auto with_tls = "SOMA_TLS_CERT=" + client.cert + " SOMA_TLS_KEY=" + client.key
                  + " SOMA_TLS_CA=" + client.ca + " " + cli;
  auto* out = popen(with_tls.c_str(), "r");
  BOOST_REQUIRE(out);
  std::string text;
  char buf[256];
  while (std::fgets(buf, sizeof buf, out))
    text += buf;
  BOOST_TEST(WEXITSTATUS(pclose(out)) == 0);
  BOOST_TEST(text.find("-" + std::to_string(reporter.pid)) != std::string::npos, text);

  // A cached remote node keeps its outputs through the same served store: a
  // worker here, on loopback; the cache over there.
  auto w1 = serving(here.sys);
  auto broker = soma::broker::embedded({{"w1", w1}});
  auto g = soma::graph::somatize(here.sys, Scale{3}.named("s").frozen("1").cached().at("w1")
                                             >> Inc{}.named("after"));
  seen first;
  BOOST_TEST(g.forward(5, {.watching = first.watcher(), .store = through, .broker = broker}) == 16);
  BOOST_TEST(names(first.facts) == (std::vector<std::string>{"machine", "ran", "left", "kept", "ran",
                                              "finished"}), said(first.facts));
  seen second;
  BOOST_TEST(g.forward(5, {.watching = second.watcher(), .store = through, .broker = broker}) == 16);
  BOOST_TEST(names(second.facts) == (std::vector<std::string>{"recalled", "ran", "finished"}),
             said(second.facts));
  // It landed on the server's disk, in the other namespace.
  auto entries = soma::cache_entries(soma::store{served_dir, {.read_only = true}});
  BOOST_REQUIRE(entries.size() == 1u);
  BOOST_TEST(entries[0].node == "s");
  // And a reader through soma:// lists it too.
  BOOST_TEST(soma::cache_entries(through).size() == 1u);
}

BOOST_AUTO_TEST_CASE(eight_claimants_in_another_namespace_claim_500_trials_through_soma_each_once,
                     *boost::unit_test::precondition(netns_available{})) {
  network_namespace net;
  certificates certs;
  auto args = certs.worker_args();
  scratch dir;
  auto served_dir = dir / "served";
  // The store is served here, on this side of the veth pair; the claimants
  // are all over there.
  std::vector<std::string> command{node_program, "--listen", net.subnet + "1:0", "--serve-store",
                                   served_dir};
  command.insert(command.end(), args.begin(), args.end());
  node_process server{command};
  auto address = "soma://" + net.subnet + "1:" + std::to_string(server.port);
  auto client = certs.as("client");
  tls_system here{client};
  auto opened = soma::open_store(here.sys, address,
                                 {.tls_cert = client.cert, .tls_key = client.key, .tls_ca = client.ca});
  if (!opened)
    BOOST_FAIL(soma::describe(opened.error()));
  std::vector<soma::values> trials;
  for (std::int64_t i = 0; i < 500; ++i)
    trials.push_back({{"i", i}});
  auto numbers = soma::add_trials(*opened, "far", trials);
  BOOST_TEST(numbers.size() == 500u);
  BOOST_TEST(numbers.back() == 499u);

  std::vector<std::unique_ptr<child>> claimants;
  for (int i = 0; i < 8; ++i)
    claimants.push_back(std::make_unique<child>(std::vector<std::string>{
      "/usr/bin/env", "ip", "netns", "exec", net.ns, "env", "SOMA_TLS_CERT=" + client.cert,
      "SOMA_TLS_KEY=" + client.key, "SOMA_TLS_CA=" + client.ca, SOMA_CLAIM_CHILD, address, "far"}));
  std::uint64_t finished = 0;
  for (auto& c : claimants) {
    auto k = c->until("finished ", std::chrono::seconds(90));
    BOOST_REQUIRE_MESSAGE(k, "a claimant did not finish within 90 s");
    finished += std::stoull(*k);
  }
  BOOST_TEST(finished == 500u);
  // On the server's disk: each trial done once, by a claimant over there.
  soma::store landed{served_dir, {.read_only = true}};
  auto rows = soma::trials(landed, "far");
  BOOST_REQUIRE_EQUAL(rows.size(), 500u);
  std::set<std::string> by;
  for (auto& r : rows) {
    BOOST_TEST(r.state == soma::trial_state::done);
    BOOST_TEST(r.attempt == 1u);
    BOOST_TEST(r.result.get<std::int64_t>("n") == static_cast<std::int64_t>(r.number));
    by.insert(r.claimant);
  }
  BOOST_TEST(by.size() >= 2u);
  // Their readings came through soma:// as well: they are machines of the fleet.
  auto st = soma::standing(landed);
  for (auto& id : by) {
    BOOST_REQUIRE(st.count(id));
    BOOST_TEST(st[id].claims == "far");
  }
  // A reader through soma:// sees the same rows.
  BOOST_TEST(soma::trials(*opened, "far").size() == 500u);
}

BOOST_AUTO_TEST_SUITE_END()
