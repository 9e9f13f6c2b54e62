#pragma once

// What the tests that leave loopback share: a private CA and certificates
// it signed, and a network namespace joined to this one by a veth pair
// (root only; skipped elsewhere with a message).

#include <unistd.h>

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

  std::vector<std::string> worker_args() const {
    return {"--tls-cert", file("worker.pem"), "--tls-key", file("worker.key"), "--tls-ca",
            file("ca.pem")};
  }
};

// The worker serves only clients that CA signed.
// A network namespace joined to this one by a veth pair: this side is
// SUBNET.1, the namespace SUBNET.2. Torn down when it goes.
struct network_namespace {
  std::string tag = std::to_string(getpid() % 100000);
  std::string ns = "soma-t" + tag;
  std::string subnet = "10.77." + std::to_string(getpid() % 250) + ".";
  bool made = false;

  network_namespace() {
    if (getuid() != 0 || sh("ip netns add " + ns) != 0)
      return;
    made = sh("ip link add vs" + tag + " type veth peer name vn" + tag) == 0
           && sh("ip link set vn" + tag + " netns " + ns) == 0
           && sh("ip addr add " + subnet + "1/24 dev vs" + tag) == 0
           && sh("ip link set vs" + tag + " up") == 0
           && sh("ip netns exec " + ns + " ip addr add " + subnet + "2/24 dev vn" + tag) == 0
           && sh("ip netns exec " + ns + " ip link set vn" + tag + " up") == 0
           && sh("ip netns exec " + ns + " ip link set lo up") == 0;
    BOOST_REQUIRE_MESSAGE(made, "could not wire the network namespace " << ns);
  }

  ~network_namespace() {
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
