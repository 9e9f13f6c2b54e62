#pragma once

// What the served-store suites share: a served store opened through the
// test's actor system, and what the soma command says.

#include <sys/wait.h>

#include <cstdint>
#include <cstdio>
#include <string>

#include <boost/test/unit_test.hpp>

#include "soma/error.hpp"
#include "soma/served/questions.hpp"
#include "soma/store/backend.hpp"
#include "soma/remote/served_store.hpp"

namespace soma_test {

// The served store at `address`, opened through `sys`.
inline soma::store served(caf::actor_system& sys, const std::string& address,
                   soma::store_options options = {}) {
  auto s = soma::open_store(sys, address, options);
  if (!s)
    BOOST_FAIL(soma::describe(s.error()));
  return *s;
}

// The answers of a served store handle: what it has asked and received.
inline const soma::served::remote_answers& remote_of(const soma::store& s) {
  auto* remote = dynamic_cast<soma::served::remote_answers*>(&s.backend().ask());
  BOOST_REQUIRE(remote != nullptr);
  return *remote;
}

// Questions a served store handle has asked so far: each one round trip.
inline std::uint64_t asked(const soma::store& s) { return remote_of(s).asked(); }

// What opening `address` through `sys` says.
inline std::string refusal(caf::actor_system& sys, const std::string& address) {
  auto s = soma::open_store(sys, address);
  return s ? std::string{"opened"} : soma::describe(s.error());
}

// What `soma ARGS` prints.
inline std::string soma_says(const std::string& args) {
  auto* p = popen((std::string{SOMA_CLI} + " " + args + " 2>&1").c_str(), "r");
  std::string text;
  char buf[512];
  while (p && std::fgets(buf, sizeof buf, p))
    text += buf;
  if (p)
    pclose(p);
  return text;
}

// What `soma ARGS` exits with, and what it prints (stdout and stderr).
struct soma_ran {
  int status = -1; // the exit code; -1 when it did not exit
  std::string text;
};

inline soma_ran soma_run(const std::string& args) {
  soma_ran out;
  auto* p = popen((std::string{SOMA_CLI} + " " + args + " 2>&1").c_str(), "r");
  if (!p)
    return out;
  char buf[512];
  while (std::fgets(buf, sizeof buf, p))
    out.text += buf;
  int status = pclose(p);
  if (status != -1 && WIFEXITED(status))
    out.status = WEXITSTATUS(status);
  return out;
}

} // namespace soma_test
