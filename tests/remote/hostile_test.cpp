// Hostile bytes are refused cheaply: a connection claiming a huge message
// before any handshake, a thousand connections of junk, and one that never
// completes its handshake, all against a real soma-node, while a real
// client keeps being answered.

#include <boost/test/unit_test.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <random>
#include <thread>

#include "remote_fixture.hpp"
#include "soma/remote/address.hpp"

using namespace soma_test;
using clock_type = std::chrono::steady_clock;
using std::chrono::milliseconds;

namespace {

/// A TCP connection to 127.0.0.1:port (bounded connect), or -1.
int dial(std::uint16_t port) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

/// A BASP header (32 bytes, network order) of a client handshake claiming
/// `payload` bytes: what a peer sends before anything is authenticated.
std::string handshake_claiming(std::uint32_t payload) {
  std::string h(32, '\0');
  h[0] = 0x01; // client_handshake
  for (int i = 0; i < 4; ++i)
    h[4 + i] = static_cast<char>((payload >> (24 - 8 * i)) & 0xff);
  return h;
}

/// The resident memory of `pid` in KiB.
long rss_kib(pid_t pid) {
  std::ifstream in{"/proc/" + std::to_string(pid) + "/status"};
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmRSS:", 0) == 0)
      return std::stol(line.substr(6));
  return -1;
}

/// Whether the peer closed `fd` within `within` (read gives 0 or an error).
bool closed_within(int fd, milliseconds within) {
  auto until = clock_type::now() + within;
  char buf[256];
  while (clock_type::now() < until) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 50) > 0) {
      auto n = read(fd, buf, sizeof buf);
      if (n <= 0)
        return true;
    }
  }
  return false;
}

/// The median of a few warm forwards' round trips, in microseconds.
long long median_forward_us(const soma::typed_graph<int, int>& g, const soma::broker& b) {
  std::vector<long long> us;
  for (int i = 0; i < 21; ++i) {
    auto t = clock_type::now();
    BOOST_REQUIRE(g.forward(1, {.broker = b}) == 2);
    us.push_back(std::chrono::duration_cast<std::chrono::microseconds>(clock_type::now() - t).count());
  }
  std::sort(us.begin(), us.end());
  return us[us.size() / 2];
}

} // namespace

BOOST_FIXTURE_TEST_SUITE(remote_hostile, system_fixture)

BOOST_AUTO_TEST_CASE(a_connection_claiming_a_huge_message_is_closed_before_it_costs_memory) {
  auto w1 = serving(sys);
  auto port = soma::parse_address(w1.address(), "test").port;
  auto before = rss_kib(w1.pid());
  std::vector<int> claims;
  for (int i = 0; i < 3; ++i) {
    int fd = dial(port);
    BOOST_REQUIRE(fd >= 0);
    auto h = handshake_claiming(1'500'000'000u);
    BOOST_REQUIRE(write(fd, h.data(), h.size()) == static_cast<ssize_t>(h.size()));
    std::string some(4096, 'x');
    (void)!write(fd, some.data(), some.size());
    claims.push_back(fd);
  }
  for (int fd : claims) {
    BOOST_TEST(closed_within(fd, milliseconds(3000)), "a 1.5 GB claim was not refused");
    close(fd);
  }
  auto after = rss_kib(w1.pid());
  BOOST_TEST_MESSAGE("worker RSS before " << before << " KiB, after three 1.5 GB claims " << after << " KiB");
  BOOST_TEST(after - before < 32 * 1024, "RSS grew by " << (after - before) << " KiB");
  auto broker = soma::broker::embedded({{"w1", w1}});
  auto g = soma::graph::somatize(sys, Inc{}.named("a").at("w1"));
  BOOST_TEST(g.forward(1, {.broker = broker}) == 2);
}

BOOST_AUTO_TEST_CASE(a_connection_that_never_completes_its_handshake_is_closed_by_its_deadline) {
  auto w1 = serving(sys);
  auto port = soma::parse_address(w1.address(), "test").port;
  int fd = dial(port);
  BOOST_REQUIRE(fd >= 0);
  // A slowloris: a valid, empty header now and then keeps the connection
  // from being silent, but it never completes a handshake.
  std::string beat(32, '\0');
  beat[0] = 0x06; // heartbeat
  auto began = clock_type::now();
  bool closed = false;
  while (!closed && clock_type::now() - began < std::chrono::seconds(10)) {
    if (write(fd, beat.data(), beat.size()) != static_cast<ssize_t>(beat.size()))
      closed = true;
    else
      closed = closed_within(fd, milliseconds(500));
  }
  auto took = std::chrono::duration_cast<milliseconds>(clock_type::now() - began).count();
  close(fd);
  BOOST_TEST(closed, "a peer that never completed its handshake stayed connected for 10 s");
  BOOST_TEST(took <= 3000 + 1500, "closed after " << took << " ms");
}

BOOST_AUTO_TEST_CASE(a_worker_under_a_thousand_junk_connections_keeps_answering_its_client) {
  auto w1 = serving(sys);
  auto port = soma::parse_address(w1.address(), "test").port;
  auto broker = soma::broker::embedded({{"w1", w1}});
  auto g = soma::graph::somatize(sys, Inc{}.named("a").at("w1"));
  auto quiet = median_forward_us(g, broker);
  auto before = rss_kib(w1.pid());
  long peak = before;
  std::mt19937 random{42};
  std::vector<int> junk;
  for (int i = 0; i < 1000; ++i) {
    int fd = dial(port);
    if (fd < 0)
      continue;
    std::string bytes(512, '\0');
    for (auto& c : bytes)
      c = static_cast<char>(random());
    (void)!write(fd, bytes.data(), bytes.size());
    junk.push_back(fd);
    if (i % 100 == 99)
      peak = std::max(peak, rss_kib(w1.pid()));
  }
  auto loaded = median_forward_us(g, broker);
  peak = std::max(peak, rss_kib(w1.pid()));
  for (int fd : junk)
    close(fd);
  BOOST_TEST_MESSAGE("1,000 junk connections: worker RSS " << before << " KiB -> peak " << peak
                     << " KiB; forward median " << quiet << " us quiet, " << loaded << " us under junk");
  BOOST_TEST(junk.size() >= 900u);
  BOOST_TEST(peak - before < 64 * 1024, "RSS grew by " << (peak - before) << " KiB");
  // Within its normal latency: a few times the quiet median at most, and
  // never the seconds it took before the limits.
  BOOST_TEST(loaded < std::max<long long>(5 * quiet, 5000), loaded << " us against " << quiet);
}

BOOST_AUTO_TEST_SUITE_END()
