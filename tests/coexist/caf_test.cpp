// A program's own CAF remote actors beside soma, in one process: a plain
// actor system (caf::actor_system_config, not soma's) publishes an actor
// and reaches another over loopback, while soma runs a graph, records it
// and reaches a served store over its own CAF connection. soma's limits on
// what a peer may send (actors/soma/remote/wire_limits.cpp) hold for soma's
// actor systems only: a plain peer whose handshake is larger than soma lets
// an unauthenticated peer send is reached by the plain system, and refused
// by one made from soma::system_config.

#include <boost/test/unit_test.hpp>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/function_view.hpp>
#include <caf/io/middleman.hpp>
#include <caf/scoped_actor.hpp>
#include <caf/send.hpp>

#include "soma_at_work.hpp"

using namespace soma_test;

namespace {

// Past the 64 KiB soma lets a peer that has not completed BASP's handshake
// announce (`soma.max-handshake-bytes`): the server's half of the handshake
// carries the application identifier.
constexpr std::size_t large_app_id = 100 << 10;

// Larger than any of soma's own messages in these tests; CAF carries up to
// 4 GiB.
constexpr std::size_t message_bytes = 4 << 20;

std::vector<std::string> app_ids() {
  return {std::string(large_app_id, 'a')}; // as plain_peer.cpp makes it
}

caf::behavior echo(caf::event_based_actor*) {
  return {[](const std::string& s) { return s; }};
}

// An actor system as a program that knows nothing of soma makes one.
struct plain_system {
  caf::actor_system_config cfg;
  caf::actor_system sys{configured(cfg)};
  std::vector<caf::actor> echoes;

  // A published actor lives until it is told to go, and the actor system
  // waits for it.
  ~plain_system() {
    for (auto& a : echoes)
      caf::anon_send_exit(a, caf::exit_reason::user_shutdown);
  }

  caf::actor spawn_echo() { return echoes.emplace_back(sys.spawn(echo)); }

  static caf::actor_system_config& configured(caf::actor_system_config& cfg) {
    cfg.load<caf::io::middleman>();
    cfg.set("middleman.app-identifiers", app_ids());
    return cfg;
  }
};

// What `sys.middleman().remote_actor("127.0.0.1", port)` does (it asks the
// middleman actor to connect), with a deadline.
caf::expected<caf::actor> reach(caf::actor_system& sys, std::uint16_t port) {
  auto mm = caf::make_function_view(sys.middleman().actor_handle(), caf::duration{deadline});
  auto res = mm(caf::connect_atom::value, std::string{"127.0.0.1"}, port);
  if (!res)
    return std::move(res.error());
  auto far = caf::actor_cast<caf::actor>(std::move(std::get<1>(*res)));
  if (!far)
    return caf::make_error(caf::sec::no_actor_published_at_port);
  return far;
}

// What an attempt gave, in words.
template <class T>
std::string said(caf::actor_system& sys, const caf::expected<T>& x) {
  return x ? std::string{"done"} : sys.render(x.error());
}

// What `far` answers to `what`, or nothing by the deadline.
std::optional<std::string> echoed(caf::actor_system& sys, const caf::actor& far,
                                  const std::string& what) {
  caf::scoped_actor self{sys};
  std::optional<std::string> back;
  self->request(far, caf::duration{deadline}, what)
    .receive([&](const std::string& s) { back = s; },
             [&](caf::error& e) { BOOST_TEST_MESSAGE("the echo failed: " << sys.render(e)); });
  return back;
}

} // namespace

BOOST_AUTO_TEST_SUITE(coexist_caf)

BOOST_AUTO_TEST_CASE(a_plain_system_reaches_a_peer_whose_handshake_soma_would_refuse_its_own) {
  soma_at_work soma{true}; // its store served by a soma-node, over soma's own connection

  child peer{{SOMA_PLAIN_PEER, "serve", std::to_string(large_app_id)}};
  auto port = peer.until("port ", deadline);
  BOOST_REQUIRE_MESSAGE(port, "plain_peer printed no port within 10 s");
  auto at = static_cast<std::uint16_t>(std::stoul(*port));

  plain_system plain;
  auto far = reach(plain.sys, at);
  BOOST_REQUIRE_MESSAGE(far, "a plain actor system could not reach a plain peer beside soma: "
                               << said(plain.sys, far));
  std::string payload(message_bytes, 'x');
  auto back = echoed(plain.sys, *far, payload);
  BOOST_REQUIRE(back);
  BOOST_TEST((*back == payload));

  // The same peer, from an actor system soma configured with the same
  // application identifier: refused at the handshake's header, before its
  // payload is read (docs/remote.md, "Limits on what a peer may send").
  {
    soma::system_config cfg;
    cfg.set("middleman.app-identifiers", app_ids());
    caf::actor_system strict{cfg};
    auto refused = reach(strict, at);
    BOOST_TEST(!refused, "soma's limit did not hold for soma's own actor system");
    BOOST_TEST_MESSAGE("soma's own actor system: " << said(strict, refused));
  }
  // Given room (a setting, as CAF's own are), soma's actor system reaches it.
  {
    soma::system_config cfg;
    cfg.set("middleman.app-identifiers", app_ids());
    cfg.set("soma.max-handshake-bytes", std::size_t{256} << 10);
    caf::actor_system roomy{cfg};
    auto reached = reach(roomy, at);
    BOOST_TEST(static_cast<bool>(reached), "soma's actor system allowed 256 KiB did not reach the peer: "
                          << said(roomy, reached));
  }

  // The plain connection lived through it, and soma went on recording.
  back = echoed(plain.sys, *far, "again");
  BOOST_TEST((back && *back == "again"));
  BOOST_TEST(soma.goes_on());
}

BOOST_AUTO_TEST_CASE(a_plain_actor_published_beside_soma_answers_a_plain_peer) {
  soma_at_work soma;

  plain_system plain;
  auto port = plain.sys.middleman().publish(plain.spawn_echo(), 0, "127.0.0.1");
  BOOST_REQUIRE_MESSAGE(port, "publish failed beside soma: " << said(plain.sys, port));

  child peer{{SOMA_PLAIN_PEER, "ask", std::to_string(*port), std::to_string(large_app_id),
              std::to_string(message_bytes)}};
  // It prints "echoed N" only when all N bytes came back as sent.
  auto said = peer.line(deadline);
  BOOST_TEST((said && *said == "echoed " + std::to_string(message_bytes)),
             "the plain peer said " << (said ? *said : "nothing within 10 s"));

  BOOST_TEST(soma.goes_on());
}

BOOST_AUTO_TEST_SUITE_END()
