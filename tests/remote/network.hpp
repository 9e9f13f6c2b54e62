#pragma once

// What the tests that leave loopback share: a private CA and certificates
// it signed, and a network namespace joined to this one by a veth pair
// (root only). A case that needs the namespace says so with
// `*boost::unit_test::precondition(netns_available{})`: where none can be
// made it is skipped with the reason, and run alone it exits 77, which CTest
// reports as Not Run (../skipping.hpp).

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cstdio>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

#include <caf/actor_system.hpp>

#include "soma/system_config.hpp"
#include "soma/remote/worker.hpp"

namespace soma_test {

namespace fs = std::filesystem;

inline const std::string openssl = SOMA_OPENSSL;

inline int sh(const std::string& command) {
  return std::system((command + " >/dev/null 2>&1").c_str());
}

/// A private CA, a worker's and a client's certificates it signed, and a
/// rogue CA's client certificate.
struct certificates {
  fs::path dir = fs::temp_directory_path() / ("soma-tls-" + std::to_string(getpid()));

  certificates() {
    fs::create_directories(dir);
    auto d = dir.string();
    auto key = [&](const std::string& name) {
      return openssl + " req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout " + d
             + "/" + name + ".key";
    };
    auto ca = [&](const std::string& name) {
      BOOST_REQUIRE(sh(key(name) + " -x509 -days 2 -subj /CN=" + name + " -out " + d + "/" + name
                       + ".pem")
                    == 0);
    };
    auto signed_by = [&](const std::string& name, const std::string& by) {
      BOOST_REQUIRE(sh(key(name) + " -subj /CN=" + name + " -out " + d + "/" + name + ".csr") == 0);
      BOOST_REQUIRE(sh(openssl + " x509 -req -days 2 -in " + d + "/" + name + ".csr -CA " + d + "/"
                       + by + ".pem -CAkey " + d + "/" + by + ".key -CAcreateserial -out " + d + "/"
                       + name + ".pem")
                    == 0);
    };
    ca("ca");
    ca("rogue-ca");
    signed_by("worker", "ca");
    signed_by("client", "ca");
    signed_by("rogue", "rogue-ca");
  }

  ~certificates() {
    std::error_code ignored;
    fs::remove_all(dir, ignored);
  }

  std::string file(const std::string& name) const { return (dir / name).string(); }

  soma::tls as(const std::string& who, const std::string& ca = "ca") const {
    return {file(who + ".pem"), file(who + ".key"), file(ca + ".pem")};
  }

  /// The worker's TLS options: it serves only clients that CA signed.
  std::vector<std::string> worker_args() const {
    return {"--tls-cert", file("worker.pem"), "--tls-key", file("worker.key"), "--tls-ca",
            file("ca.pem")};
  }
};

/// A precondition (`*boost::unit_test::precondition(netns_available{})`):
/// whether this process may make a network namespace, found by making one
/// and deleting it. With `nft`, also whether nft works inside it.
/// SOMA_TEST_NO_NETNS=1 in the environment makes it say no, so that the
/// skip itself can be tested here (tests/remote/CMakeLists.txt).
struct netns_available {
  bool nft = false;

  boost::test_tools::assertion_result operator()(boost::unit_test::test_unit_id) const {
    auto no = [](const std::string& why) {
      boost::test_tools::assertion_result r{false};
      r.message() << why;
      return r;
    };
    if (const char* v = std::getenv("SOMA_TEST_NO_NETNS"); v && *v && std::string{v} != "0")
      return no("network namespaces are unavailable here (SOMA_TEST_NO_NETNS is set)");
    if (getuid() != 0)
      return no("network namespaces are unavailable here (needs root and ip netns)");
    auto probe = "soma-p" + std::to_string(getpid());
    if (sh("ip netns add " + probe) != 0)
      return no("network namespaces are unavailable here (`ip netns add` failed)");
    bool nft_works = !nft || sh("ip netns exec " + probe + " nft list tables") == 0;
    sh("ip netns del " + probe);
    if (!nft_works)
      return no("nft does not work here (scripts/setup installs nftables)");
    return true;
  }
};

/// A network namespace joined to this one by a veth pair: this side is
/// SUBNET.1, the namespace SUBNET.2. Torn down when it goes. A case that
/// makes one carries the precondition netns_available, so failing to make
/// it here is a failure, not a skip.
///
/// Its subnet is one no interface on this host holds yet, chosen and
/// claimed under a lock that every test process takes (`flock` on a file
/// in /run/lock): tests that run side by side under `ctest -j2` never share
/// one. Two veth pairs on one /24 send the answers to one of them down the
/// other, which showed as claimants that could not reach their server.
struct network_namespace {
  std::string tag = std::to_string(getpid());
  std::string ns = "soma-t" + tag;
  std::string subnet;

  network_namespace() {
    bool made = false;
    {
      subnet_lock lock;
      subnet = free_subnet();
      made = !subnet.empty() && sh("ip netns add " + ns) == 0
             && sh("ip link add vs" + tag + " type veth peer name vn" + tag) == 0
             && sh("ip link set vn" + tag + " netns " + ns) == 0
             && sh("ip addr add " + subnet + "1/24 dev vs" + tag) == 0;
    }
    made = made && sh("ip link set vs" + tag + " up") == 0
           && sh("ip netns exec " + ns + " ip addr add " + subnet + "2/24 dev vn" + tag) == 0
           && sh("ip netns exec " + ns + " ip link set vn" + tag + " up") == 0
           && sh("ip netns exec " + ns + " ip link set lo up") == 0;
    if (!made)
      tear_down(); // the destructor does not run when the constructor throws
    BOOST_REQUIRE_MESSAGE(made, "could not wire the network namespace " << ns
                                  << (subnet.empty() ? " (no free 10.77.N.0/24 on this host)" : ""));
  }

  ~network_namespace() { tear_down(); }

private:
  /// Held while a subnet is chosen and its address added.
  struct subnet_lock {
    int fd = ::open("/run/lock/soma-test-netns.lock", O_CREAT | O_RDWR | O_CLOEXEC, 0600);
    subnet_lock() {
      if (fd >= 0)
        ::flock(fd, LOCK_EX);
    }
    ~subnet_lock() {
      if (fd >= 0)
        ::close(fd); // releases the lock
    }
    subnet_lock(const subnet_lock&) = delete;
    subnet_lock& operator=(const subnet_lock&) = delete;
  };

  /// The first 10.77.N. (from this pid's N on) that no address on this host
  /// is in; empty when all 250 are taken.
  static std::string free_subnet() {
    std::string held;
    if (auto* in = ::popen("ip -o -4 addr show 2>/dev/null", "r")) {
      char buf[512];
      while (std::fgets(buf, sizeof buf, in))
        held += buf;
      ::pclose(in);
    }
    for (int i = 0; i < 250; ++i) {
      auto candidate = "10.77." + std::to_string((getpid() + i) % 250) + ".";
      if (held.find(" " + candidate) == std::string::npos)
        return candidate;
    }
    return {};
  }

  void tear_down() const {
    sh("ip link del vs" + tag);
    sh("ip netns del " + ns);
  }
};


/// An actor system whose connections are mutual TLS with these files.
struct tls_system {
  soma::system_config cfg;
  caf::actor_system sys;
  explicit tls_system(const soma::tls& files) : sys{cfg.use_tls(files)} {}
};

/// Runs `command` in the namespace, quietly; its exit status.
inline int in_namespace(const network_namespace& net, const std::string& command) {
  return sh("ip netns exec " + net.ns + " " + command);
}

} // namespace soma_test
