// soma-node --metrics: a real worker's GET /metrics is Prometheus text whose
// counts move with what it does (readings, sessions, slices served, failed
// and refused, a served store's operations); the TLS rule and a taken port
// exit as documented; with its TLS files it is HTTPS to a scraper without a
// certificate; SIGTERM stops it within its bound and closes the port.

#include <boost/test/unit_test.hpp>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <chrono>
#include <cstdlib>
#include <map>
#include <optional>
#include <regex>
#include <sstream>

#include <httplib.h>

#include "../store/scratch.hpp"
#include "network.hpp"
#include "remote_fixture.hpp"
#include "soma/remote/served_store.hpp"
#include "soma/store/readings.hpp"
#include "soma/store/standing.hpp"
#include "soma/version.hpp"

using namespace soma_test;
using std::chrono::milliseconds;

namespace {

/// The most a soma-node's stop may take (docs/remote.md): --stop-within's
/// default of 1.5 s, plus what cutting short costs.
constexpr milliseconds stop_bound{2000};

/// `args` as one sh word each (none holds a quote).
std::string quoted(const std::vector<std::string>& args) {
  std::string out;
  for (auto& a : args)
    out += " '" + a + "'";
  return out;
}

/// A soma-node serving `library` with --metrics `at` and `more`, its stderr
/// in `log`: where its metrics are, read from its line.
struct metered_node {
  std::string log;
  node_process node;
  std::string url;
  int metrics = 0;

  metered_node(std::string log_file, std::vector<std::string> more, const std::string& library = test_nodes,
               const std::string& at = "127.0.0.1:0")
    : log(std::move(log_file)),
      node({"sh", "-c",
            "exec" + quoted({node_program, "--nodes", library, "--metrics", at}) + quoted(more) + " 2>'"
              + log + "'"}) {
    static const std::regex line{R"(metrics at (https?://[^ ]+:([0-9]+)/metrics)\n)"};
    std::string text;
    std::smatch m;
    BOOST_REQUIRE_MESSAGE(eventually([&] { return std::regex_search(text = read_all(log), m, line); }),
                          "no metrics line within " << startup_deadline.count() << " s:\n" << text);
    url = m[1];
    metrics = std::stoi(m[2]);
  }
};

/// A client of 127.0.0.1:port whose every call ends within seconds.
httplib::Client client_of(int port) {
  httplib::Client c{"127.0.0.1", port};
  c.set_connection_timeout(2, 0);
  c.set_read_timeout(5, 0);
  c.set_write_timeout(5, 0);
  return c;
}

struct sample {
  std::string name, labels;
  double value = 0;
};

/// A Prometheus text exposition (0.0.4), read strictly: every line a HELP,
/// a TYPE (counter, gauge or untyped; once per family, before its samples;
/// a counter's name ending in _total) or a sample of a declared family with
/// a valid name, valid labels and a number. `wrong` says the first line
/// that is not.
struct exposition {
  std::vector<sample> samples;
  std::map<std::string, std::string> types;
  std::string wrong;

  explicit exposition(const std::string& text) {
    static const std::regex help{R"(# HELP [a-zA-Z_:][a-zA-Z0-9_:]* .*)"};
    static const std::regex type{R"(# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|untyped))"};
    static const std::regex line{R"(([a-zA-Z_:][a-zA-Z0-9_:]*))"
                                 R"((\{[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\]|\\.)*")"
                                 R"((?:,[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\]|\\.)*")*\})? (\S+))"};
    if (text.empty() || text.back() != '\n')
      wrong = "it does not end with a newline";
    std::istringstream in{text};
    std::string l;
    for (int n = 1; wrong.empty() && std::getline(in, l); ++n) {
      std::smatch m;
      auto where = "line " + std::to_string(n) + " '" + l + "' ";
      if (std::regex_match(l, help))
        continue;
      if (std::regex_match(l, m, type)) {
        if (!types.emplace(m[1], m[2]).second)
          wrong = where + "declares its family again";
        else if (m[2] == "counter" && !m[1].str().ends_with("_total"))
          wrong = where + "declares a counter whose name does not end in _total";
        continue;
      }
      if (!std::regex_match(l, m, line)) {
        wrong = where + "is no HELP, TYPE or sample";
        continue;
      }
      if (!types.count(m[1]))
        wrong = where + "is a sample of a family no TYPE declared before it";
      auto number = m[3].str();
      char* end = nullptr;
      double v = std::strtod(number.c_str(), &end);
      if (end != number.c_str() + number.size())
        wrong = where + "has no number for its value";
      samples.push_back({m[1], m[2], v});
    }
  }

  /// The first sample named `name`; a failed check when there is none.
  [[nodiscard]] const sample& of(const std::string& name) const {
    for (auto& s : samples)
      if (s.name == name)
        return s;
    BOOST_FAIL("no sample " << name);
    return samples.front();
  }

  [[nodiscard]] double operator[](const std::string& name) const { return of(name).value; }
};

/// GET /metrics of 127.0.0.1:port, checked to be a strict exposition.
exposition scrape(int port) {
  auto c = client_of(port);
  auto r = c.Get("/metrics");
  BOOST_REQUIRE_MESSAGE(r, "GET /metrics failed: " << httplib::to_string(r.error()));
  BOOST_REQUIRE_EQUAL(r->status, 200);
  BOOST_TEST(r->get_header_value("Content-Type") == "text/plain; version=0.0.4; charset=utf-8");
  exposition e{r->body};
  BOOST_REQUIRE_MESSAGE(e.wrong.empty(), "not Prometheus text: " << e.wrong << "\n" << r->body);
  return e;
}

/// Runs `args` with stderr into `log` and stdout nowhere; its wait status
/// once it exits, within `within` (-1 if it did not: it is then killed).
int exit_of(const std::vector<std::string>& args, const std::string& log, milliseconds within) {
  child_process p{{"sh", "-c", "exec" + quoted(args) + " 2>'" + log + "'"},
                  ::open("/dev/null", O_WRONLY | O_CLOEXEC)};
  int status = reaped_within(p.pid, within);
  if (status != -1)
    p.pid = -1;
  return status;
}

} // namespace

BOOST_FIXTURE_TEST_SUITE(remote_metrics, system_fixture)

BOOST_AUTO_TEST_CASE(a_scrape_is_prometheus_text_with_every_family_and_its_readings_rise) {
  scratch dir;
  metered_node w{dir / "log", {"--store", dir / "kept", "--reporting", "0.2"}};
  auto first = scrape(w.metrics);
  for (auto* counter : {"soma_node_sessions_opened_total", "soma_node_slices_served_total",
                        "soma_node_slices_failed_total", "soma_node_slices_refused_total",
                        "soma_node_readings_total", "soma_node_reading_failures_total",
                        "soma_node_readings_dropped_total",
                        "soma_node_store_ops_total"})
    BOOST_TEST(first.types[counter] == "counter", counter);
  for (auto* gauge : {"soma_node_info", "soma_node_up_seconds", "soma_node_sessions_open",
                      "soma_node_slices_running"})
    BOOST_TEST(first.types[gauge] == "gauge", gauge);
  BOOST_TEST(first.types.size() == 12u);
  // The worker names itself as its readings do, and says its version.
  auto& info = first.of("soma_node_info");
  BOOST_TEST(info.value == 1.0);
  std::smatch id;
  BOOST_REQUIRE_MESSAGE(std::regex_match(info.labels, id, std::regex{R"x(\{id="([^"]+)",version="([^"]+)"\})x"}),
                        info.labels);
  BOOST_TEST(id[1].str().ends_with("-" + std::to_string(w.node.pid)));
  BOOST_TEST(id[2].str() == soma::version);
  BOOST_TEST(first["soma_node_up_seconds"] >= 0.0);
  BOOST_TEST(first["soma_node_up_seconds"] < 60.0);

  // A reading every 0.2 s: the count rises from one scrape to a later one.
  auto readings = first["soma_node_readings_total"];
  std::optional<exposition> later;
  BOOST_TEST(eventually([&] {
    later.emplace(scrape(w.metrics));
    return (*later)["soma_node_readings_total"] > readings;
  }));
  BOOST_TEST((*later)["soma_node_reading_failures_total"] == 0.0);
  BOOST_TEST((*later)["soma_node_readings_dropped_total"] == 0.0);
  BOOST_TEST((*later)["soma_node_up_seconds"] >= first["soma_node_up_seconds"]);
  // Those readings are in the store, under the id the metrics give.
  BOOST_TEST(soma::standing(soma::store{dir / "kept", {.read_only = true}}).count(id[1].str()) == 1u);

  // Anything else is a 404 that says what is there.
  auto c = client_of(w.metrics);
  auto other = c.Get("/");
  BOOST_REQUIRE(other);
  BOOST_TEST(other->status == 404);
  BOOST_TEST(other->body == "soma-node --metrics answers GET /metrics only, not GET /\n");
}

BOOST_AUTO_TEST_CASE(forwards_move_the_sessions_and_slices_by_what_they_did) {
  scratch dir;
  metered_node w{dir / "log", {}};
  auto before = scrape(w.metrics);
  BOOST_TEST(before["soma_node_sessions_opened_total"] == 0.0);
  BOOST_TEST(before["soma_node_sessions_open"] == 0.0);
  BOOST_TEST(before["soma_node_slices_served_total"] == 0.0);
  {
    auto w1 = soma::worker::connect(sys, "127.0.0.1:" + std::to_string(w.node.port));
    auto broker = soma::broker::embedded({{"w1", w1}});
    auto inc = soma::graph::somatize(sys, Inc{}.named("a").at("w1"));
    for (int i = 0; i < 3; ++i)
      BOOST_TEST(inc.forward(i, {.broker = broker}) == i + 1);
    auto picky = soma::graph::somatize(sys, Picky{}.named("p").at("w1"));
    BOOST_CHECK_THROW((void)picky.forward(-1, {.broker = broker}), soma::forward_error);
    auto after = scrape(w.metrics);
    BOOST_TEST(after["soma_node_sessions_opened_total"] == 1.0);
    BOOST_TEST(after["soma_node_sessions_open"] == 1.0);
    BOOST_TEST(after["soma_node_slices_served_total"] == 4.0);
    BOOST_TEST(after["soma_node_slices_failed_total"] == 1.0);
    BOOST_TEST(after["soma_node_slices_refused_total"] == 0.0);
    BOOST_TEST(after["soma_node_slices_running"] == 0.0);
    BOOST_TEST(after["soma_node_store_ops_total"] == 0.0);
  }

  // A worker holding another build of Inc refuses the slice: answered, not run.
  metered_node v2{dir / "log2", {}, test_nodes_v2};
  auto w2 = soma::worker::connect(sys, "127.0.0.1:" + std::to_string(v2.node.port));
  auto inc = soma::graph::somatize(sys, Inc{}.named("a").at("w2"));
  BOOST_CHECK_THROW((void)inc.forward(1, {.broker = soma::broker::embedded({{"w2", w2}})}),
                    soma::forward_error);
  auto refused = scrape(v2.metrics);
  BOOST_TEST(refused["soma_node_slices_served_total"] == 1.0);
  BOOST_TEST(refused["soma_node_slices_refused_total"] == 1.0);
  BOOST_TEST(refused["soma_node_slices_failed_total"] == 0.0);
}

BOOST_AUTO_TEST_CASE(a_served_store_counts_what_it_is_asked) {
  scratch dir;
  metered_node w{dir / "log", {"--serve-store", dir / "served"}};
  BOOST_TEST(scrape(w.metrics)["soma_node_store_ops_total"] == 0.0);
  {
    auto opened = soma::open_store(sys, "soma://127.0.0.1:" + std::to_string(w.node.port));
    if (!opened)
      BOOST_FAIL(soma::describe(opened.error()));
    auto now = std::chrono::system_clock::now().time_since_epoch();
    soma::put_reading(*opened, soma::reading{
      .id = "elsewhere-1", .cores = 1,
      .when_us = std::chrono::duration_cast<std::chrono::microseconds>(now).count()});
    BOOST_TEST(soma::standing(*opened).count("elsewhere-1") == 1u);
    auto e = scrape(w.metrics);
    BOOST_TEST(e["soma_node_sessions_opened_total"] == 1.0);
    BOOST_TEST(e["soma_node_sessions_open"] == 1.0);
    // The reading, then at least a version to read it back.
    BOOST_TEST(e["soma_node_store_ops_total"] >= 2.0);
    BOOST_TEST(e["soma_node_slices_served_total"] == 0.0);
  }
}

BOOST_AUTO_TEST_CASE(beyond_loopback_without_tls_exits_2_and_a_port_taken_exits_1) {
  scratch dir;
  auto log = dir / "log";
  int status = exit_of({node_program, "--metrics", "0.0.0.0:0"}, log, milliseconds(5000));
  BOOST_REQUIRE_MESSAGE(status != -1, "still running 5 s after it was started");
  auto said = read_all(log);
  BOOST_TEST(WIFEXITED(status));
  BOOST_TEST(WEXITSTATUS(status) == 2, said);
  BOOST_TEST(said.find("refusing to serve --metrics on 0.0.0.0:0 without TLS") != std::string::npos, said);
  BOOST_TEST(said.find("--tls-cert") != std::string::npos, said);

  // A port another program listens on.
  int holder = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t size = sizeof addr;
  BOOST_REQUIRE(::bind(holder, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  BOOST_REQUIRE(::listen(holder, 1) == 0);
  BOOST_REQUIRE(::getsockname(holder, reinterpret_cast<sockaddr*>(&addr), &size) == 0);
  auto taken = "127.0.0.1:" + std::to_string(ntohs(addr.sin_port));
  status = exit_of({node_program, "--metrics", taken}, log, milliseconds(5000));
  ::close(holder);
  BOOST_REQUIRE_MESSAGE(status != -1, "still running 5 s after it was started");
  said = read_all(log);
  BOOST_TEST(WIFEXITED(status));
  BOOST_TEST(WEXITSTATUS(status) == 1, said);
  BOOST_TEST(said.find("soma-node: --metrics: cannot listen on " + taken) != std::string::npos, said);
}

BOOST_AUTO_TEST_CASE(with_its_tls_files_it_serves_https_beyond_loopback_to_a_scraper_without_a_certificate) {
  BOOST_REQUIRE_MESSAGE(!openssl.empty(), "the openssl program is needed to make certificates");
  certificates certs;
  scratch dir;
  metered_node w{dir / "log", certs.worker_args(), test_nodes, "0.0.0.0:0"};
  BOOST_TEST(w.url == "https://0.0.0.0:" + std::to_string(w.metrics) + "/metrics");
  // The worker's certificate names it "worker": the scraper checks it
  // against the CA, and shows none of its own.
  httplib::SSLClient c{"worker", w.metrics};
  c.set_hostname_addr_map({{"worker", "127.0.0.1"}});
  c.set_ca_cert_path(certs.file("ca.pem"));
  c.enable_server_certificate_verification(true);
  c.set_connection_timeout(2, 0);
  c.set_read_timeout(5, 0);
  auto r = c.Get("/metrics");
  BOOST_REQUIRE_MESSAGE(r, "GET /metrics over TLS failed: " << httplib::to_string(r.error()));
  BOOST_TEST(r->status == 200);
  exposition e{r->body};
  BOOST_TEST(e.wrong.empty(), e.wrong);
  // Plain HTTP is not answered there.
  auto plain = client_of(w.metrics).Get("/metrics");
  BOOST_TEST((!plain || plain->status != 200));
}

BOOST_AUTO_TEST_CASE(sigterm_stops_it_within_the_bound_and_its_metrics_port_then_refuses) {
  scratch dir;
  metered_node w{dir / "log", {"--store", dir / "kept", "--reporting", "0.1"}};
  // A scraper that would keep its connection, and a connection that sends
  // nothing, both open at the stop.
  auto held = client_of(w.metrics);
  held.set_keep_alive(true);
  auto r = held.Get("/metrics");
  BOOST_REQUIRE(r);
  BOOST_REQUIRE_EQUAL(r->status, 200);
  int silent = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(w.metrics));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  BOOST_REQUIRE(::connect(silent, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  auto began = std::chrono::steady_clock::now();
  BOOST_REQUIRE(kill(w.node.pid, SIGTERM) == 0);
  int status = reaped_within(w.node.pid, milliseconds(10000));
  auto ms = std::chrono::duration_cast<milliseconds>(std::chrono::steady_clock::now() - began).count();
  BOOST_REQUIRE_MESSAGE(status != -1, "still running 10 s after SIGTERM");
  w.node.pid = -1;
  auto said = read_all(w.log);
  BOOST_TEST_MESSAGE("SIGTERM to exit with a scraper's connection open: " << ms << " ms");
  BOOST_TEST(ms <= stop_bound.count(), "exited " << ms << " ms after SIGTERM");
  BOOST_TEST(WIFEXITED(status));
  BOOST_TEST(WEXITSTATUS(status) == 0, said);
  BOOST_TEST(said.find("cut short") == std::string::npos, said);
  // Nothing was left behind at the bound: the stop finished in time.
  BOOST_TEST(said.find("left without it") == std::string::npos, said);
  ::close(silent);
  auto c = client_of(w.metrics);
  auto after = c.Get("/metrics");
  BOOST_TEST(!after);
  BOOST_TEST((after.error() == httplib::Error::Connection), httplib::to_string(after.error()));
}

BOOST_AUTO_TEST_SUITE_END()
