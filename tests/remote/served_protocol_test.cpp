// The served store's protocol as a hand-made client speaks it
// (soma/served/protocol.hpp): the server, not the client, refuses writes in
// a read-only session; a protocol-2 client and an operation it does not
// know are told so; past --store-sessions a client is refused with a
// message, and a session freed lets the next in; readings that arrive
// together are written in fewer commits than readings, and every one lands.

#include <boost/test/unit_test.hpp>

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <caf/io/middleman.hpp>
#include <caf/scoped_actor.hpp>

#include "../store/scratch.hpp"
#include "remote_fixture.hpp"
#include "soma/remote/protocol.hpp"
#include "soma/served/protocol.hpp"
#include "served.hpp"
#include "soma/store/answers.hpp"
#include "soma/store/backend.hpp"
#include "soma/store/readings.hpp"
#include "soma/store/standing.hpp"
#include "soma/wire/reading.hpp"
#include "soma/wire/served_store.hpp"

using namespace soma_test;
using namespace std::chrono_literals;
using soma::served::store_op;

namespace {

// What an error from the server says: its words, or CAF's rendering.
std::string words(caf::actor_system& sys, const caf::error& e) {
  return e.context().match_elements<std::string>() || e.context().match_elements<std::string, std::string>()
           ? e.context().get_as<std::string>(0)
           : sys.render(e);
}

// A hand-made client of a served store: its own scoped actor, a session
// opened in `mode`, and calls by operation number.
struct hand_client {
  caf::actor_system& sys;
  caf::scoped_actor self;
  caf::actor session;
  std::string refused; // what opening said, when it was refused

  hand_client(caf::actor_system& s, std::uint16_t port, const std::string& mode)
    : sys(s), self(s) {
    auto front = sys.middleman().remote_actor("127.0.0.1", port);
    BOOST_REQUIRE_MESSAGE(front, "the served store's front at port " << port);
    self->request(*front, 10s, soma::detail::open_atom::value, caf::actor{self}, mode)
      .receive([&](caf::actor& a) { session = a; },
               [&](caf::error& e) { refused = words(sys, e); });
  }

  // The answer to `op` with `payload`, or the error's words as `failed`.
  std::optional<std::string> call(std::uint8_t op, const std::string& payload, std::string& failed) {
    std::optional<std::string> out;
    self->request(session, 10s, soma::served::store_atom::value, op, payload)
      .receive([&](std::string& x) { out = std::move(x); },
               [&](caf::error& e) { failed = words(sys, e); });
    return out;
  }

  std::optional<std::string> call(store_op op, const std::string& payload, std::string& failed) {
    return call(static_cast<std::uint8_t>(op), payload, failed);
  }
};

soma::reading reading_of(const std::string& id, std::int64_t when_us) {
  soma::reading r;
  r.id = id;
  r.every_us = 500000;
  r.when_us = when_us;
  return r;
}

std::int64_t now_us() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
           std::chrono::system_clock::now().time_since_epoch())
    .count();
}

} // namespace

BOOST_FIXTURE_TEST_SUITE(served_protocol, system_fixture)

BOOST_AUTO_TEST_CASE(a_read_only_session_is_refused_every_write_by_the_server) {
  scratch dir;
  node_process server{{node_program, "--serve-store", dir / "served"}};
  hand_client reader{sys, server.port, soma::served::store_read_mode};
  BOOST_REQUIRE_MESSAGE(reader.session, reader.refused);
  std::string failed;
  // A write the client library would never send read-only: the server says no.
  auto wrote = reader.call(store_op::reading, soma::wire::encode_reading(reading_of("w1", now_us())),
                           failed);
  BOOST_TEST(!wrote);
  BOOST_TEST(failed.find("refuses 'reading', a write, in this session: it was opened read-only")
               != std::string::npos,
             failed);
  for (auto op : {store_op::records, store_op::cache_put, store_op::trials_add, store_op::claim,
                  store_op::trial_end, store_op::trial_end_claim, store_op::reclaim}) {
    failed.clear();
    BOOST_TEST(!reader.call(op, "", failed), soma::served::info(op).name);
    BOOST_TEST(failed.find("refuses '" + std::string{soma::served::info(op).name} + "'")
                 != std::string::npos,
               failed);
  }
  // Nothing landed, and a read-only client reads.
  auto address = "soma://127.0.0.1:" + std::to_string(server.port);
  BOOST_TEST(soma::standing(served(sys, address, {.read_only = true})).empty());
  // The same write in a session opened to write lands.
  hand_client writer{sys, server.port, soma::served::store_mode};
  BOOST_REQUIRE_MESSAGE(writer.session, writer.refused);
  failed.clear();
  BOOST_TEST(writer.call(store_op::reading, soma::wire::encode_reading(reading_of("w1", now_us())),
                         failed).has_value(), failed);
  BOOST_TEST(soma::standing(soma::store{dir / "served", {.read_only = true}}).size() == 1u);
}

BOOST_AUTO_TEST_CASE(an_older_client_and_an_unknown_operation_are_told_what_to_do) {
  scratch dir;
  node_process server{{node_program, "--serve-store", dir / "served"}};
  hand_client old{sys, server.port, soma::served::store_mode_2};
  BOOST_TEST(!old.session);
  BOOST_TEST(old.refused.find("the client speaks protocol 2") != std::string::npos, old.refused);
  BOOST_TEST(old.refused.find("upgrade soma on the client's host") != std::string::npos, old.refused);
  hand_client c{sys, server.port, soma::served::store_mode};
  BOOST_REQUIRE_MESSAGE(c.session, c.refused);
  std::string failed;
  BOOST_TEST(!c.call(std::uint8_t{200}, "", failed));
  BOOST_TEST(failed.find("no store operation numbered 200") != std::string::npos, failed);
  // Bytes that are not the operation's request: named, and the session lives on.
  failed.clear();
  BOOST_TEST(!c.call(store_op::cache_get, "not a CacheAsk", failed));
  BOOST_TEST(failed.find("'cache_get' whose bytes are not its CacheAsk") != std::string::npos, failed);
  failed.clear();
  BOOST_TEST(c.call(store_op::reading, soma::wire::encode_reading(reading_of("w1", now_us())),
                    failed).has_value(), failed);
}

BOOST_AUTO_TEST_CASE(past_its_session_limit_a_client_is_refused_and_a_freed_session_lets_the_next_in) {
  scratch dir;
  node_process server{{node_program, "--serve-store", dir / "served", "--store-sessions", "2"}};
  std::optional<hand_client> a, b;
  a.emplace(sys, server.port, soma::served::store_mode);
  b.emplace(sys, server.port, soma::served::store_read_mode);
  BOOST_REQUIRE_MESSAGE(a->session, a->refused);
  BOOST_REQUIRE_MESSAGE(b->session, b->refused);
  {
    hand_client third{sys, server.port, soma::served::store_mode};
    BOOST_TEST(!third.session);
    BOOST_TEST(third.refused.find("has 2 sessions open, its limit (soma-node --store-sessions)")
                 != std::string::npos,
               third.refused);
  }
  // The first client goes: its session is reaped, and the next one opens.
  a.reset();
  BOOST_TEST(eventually([&] {
    hand_client next{sys, server.port, soma::served::store_mode};
    return static_cast<bool>(next.session);
  }));
}

BOOST_AUTO_TEST_CASE(readings_that_arrive_together_are_written_in_fewer_commits_and_all_land) {
  scratch dir;
  node_process server{{node_program, "--serve-store", dir / "served"}};
  constexpr int clients = 48;
  std::vector<std::unique_ptr<hand_client>> hands;
  for (int i = 0; i < clients; ++i) {
    hands.push_back(std::make_unique<hand_client>(sys, server.port, soma::served::store_mode));
    BOOST_REQUIRE_MESSAGE(hands.back()->session, hands.back()->refused);
  }
  // The store's last transaction, as a reader on this host sees it.
  soma::store local{dir / "served", {.read_only = true}};
  auto before = local.backend().ask().version();
  // Every client sends its reading at once, each from a thread of its own,
  // and waits for its answer.
  auto when = now_us();
  std::atomic<int> failed{0};
  std::vector<std::thread> senders;
  for (int i = 0; i < clients; ++i)
    senders.emplace_back([&, i] {
      caf::scoped_actor self{sys};
      self->request(hands[i]->session, 30s, soma::served::store_atom::value,
                    static_cast<std::uint8_t>(store_op::reading),
                    soma::wire::encode_reading(reading_of("m" + std::to_string(i), when)))
        .receive([](std::string&) {}, [&](caf::error&) { ++failed; });
    });
  for (auto& t : senders)
    t.join();
  BOOST_TEST(failed.load() == 0);
  auto commits = local.backend().ask().version() - before;
  BOOST_TEST_MESSAGE(clients << " readings in " << commits << " commits");
  BOOST_TEST(commits >= 1u);
  BOOST_TEST(commits <= std::uint64_t{clients / 2}, clients << " readings took " << commits << " commits");
  auto standing = soma::standing(local);
  BOOST_TEST(standing.size() == std::size_t{clients});
  // Every machine's latest is the reading it sent (standing reads a count of
  // machines kept beside them that disagreed as damage).
  for (auto& [id, r] : standing)
    BOOST_TEST(r.when_us == when);
}

BOOST_AUTO_TEST_SUITE_END()
