// The served store's protocol as a hand-made client speaks it
// (soma/served/protocol.hpp): the server, not the client, refuses writes in
// a read-only session; a protocol-2 client and an operation it does not
// know are told so; past --store-sessions a client is refused with a
// message, and a session freed lets the next in; readings that arrive
// together are written in fewer commits than readings, and every one lands.

#include <boost/test/unit_test.hpp>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <set>
#include <thread>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <caf/io/middleman.hpp>
#include <caf/scoped_actor.hpp>

#include <signal.h>

#include "../draw/writing.hpp"
#include "../store/scratch.hpp"
#include "remote_fixture.hpp"
#include "server_port.hpp"
#include "soma/remote/protocol.hpp"
#include "soma/served/protocol.hpp"
#include "served.hpp"
#include "soma/store/answers.hpp"
#include "soma/store/backend.hpp"
#include "soma/store/readers.hpp"
#include "soma/store/readings.hpp"
#include "soma/store/standing.hpp"
#include "soma/wire/reading.hpp"
#include "soma/wire/record_write.hpp"
#include "soma/wire/trial.hpp"
#include "soma/store/trials.hpp"
#include "soma/wire/served_store.hpp"

using namespace soma_test;
using namespace std::chrono_literals;
using soma::served::store_op;

namespace {

// What an error from the server says: soma's words, or CAF's rendering.
std::string words(caf::actor_system& sys, const caf::error& e) {
  if (e.category() == soma::error_category)
    return soma::describe(e);
  return e.context().match_elements<std::string>() ? e.context().get_as<std::string>(0)
                                                   : sys.render(e);
}

// A hand-made client of a served store: its own scoped actor, a session
// opened in `mode`, and calls by operation number.
struct hand_client {
  caf::actor_system& sys;
  caf::scoped_actor self;
  caf::actor session;
  std::string refused; // what opening said, when it was refused
  soma::store_trouble kind = soma::store_trouble::failed; // the kind of the last error

  hand_client(caf::actor_system& s, std::uint16_t port, const std::string& mode)
    : sys(s), self(s) {
    auto front = sys.middleman().remote_actor("127.0.0.1", port);
    BOOST_REQUIRE_MESSAGE(front, "the served store's front at port " << port);
    self->request(*front, 10s, soma::detail::open_atom::value, caf::actor{self}, mode)
      .receive([&](caf::actor& a) { session = a; },
               [&](caf::error& e) {
                 refused = words(sys, e);
                 kind = soma::trouble_of(e);
               });
  }

  // The answer to `op` with `payload`, or the error's words as `failed`.
  std::optional<std::string> call(std::uint8_t op, const std::string& payload, std::string& failed) {
    std::optional<std::string> out;
    self->request(session, 10s, soma::served::store_atom::value, op, payload)
      .receive([&](std::string& x) { out = std::move(x); },
               [&](caf::error& e) {
                 failed = words(sys, e);
                 kind = soma::trouble_of(e);
               });
    return out;
  }

  std::optional<std::string> call(store_op op, const std::string& payload, std::string& failed) {
    return call(static_cast<std::uint8_t>(op), payload, failed);
  }
};

// `n` hand clients of the store served at `port`, each in a writable session.
std::vector<std::unique_ptr<hand_client>> writers_at(caf::actor_system& sys, std::uint16_t port,
                                                     int n) {
  std::vector<std::unique_ptr<hand_client>> hands;
  for (int i = 0; i < n; ++i) {
    hands.push_back(std::make_unique<hand_client>(sys, port, soma::served::store_mode));
    BOOST_REQUIRE_MESSAGE(hands.back()->session, hands.back()->refused);
  }
  return hands;
}

// What every client answered when each sent `op` with `payload_of(i)` at
// once, each from a thread of its own: its answer, or its error's words.
struct at_once {
  std::vector<std::optional<std::string>> answers;
  std::vector<std::string> refused;
};

at_once all_at_once(caf::actor_system& sys, const std::vector<std::unique_ptr<hand_client>>& hands,
                    store_op op, const std::function<std::string(int)>& payload_of) {
  auto n = static_cast<int>(hands.size());
  at_once out{std::vector<std::optional<std::string>>(hands.size()),
              std::vector<std::string>(hands.size())};
  std::vector<std::string> payloads;
  for (int i = 0; i < n; ++i)
    payloads.push_back(payload_of(i));
  std::vector<std::thread> senders;
  for (int i = 0; i < n; ++i)
    senders.emplace_back([&, i] {
      caf::scoped_actor self{sys};
      self->request(hands[i]->session, 30s, soma::served::store_atom::value,
                    static_cast<std::uint8_t>(op), payloads[i])
        .receive([&](std::string& x) { out.answers[i] = std::move(x); },
                 [&](caf::error& e) { out.refused[i] = words(sys, e); });
    });
  for (auto& t : senders)
    t.join();
  return out;
}

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
  BOOST_TEST(soma::to_string(reader.kind) == "read_only"); // as data, not only words
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
  BOOST_TEST(soma::to_string(old.kind) == "refused");
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
    BOOST_TEST(soma::to_string(third.kind) == "busy");
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
  auto hands = writers_at(sys, server.port, clients);
  // The store's last transaction, as a reader on this host sees it.
  soma::store local{dir / "served", {.read_only = true}};
  auto before = local.backend().ask().version();
  // Every client sends its reading at once, each from a thread of its own,
  // and waits for its answer.
  auto when = now_us();
  auto sent = all_at_once(sys, hands, store_op::reading, [&](int i) {
    return soma::wire::encode_reading(reading_of("m" + std::to_string(i), when));
  });
  for (int i = 0; i < clients; ++i)
    BOOST_TEST(sent.refused[i].empty(), sent.refused[i]);
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

// The threads of process `pid` now.
std::size_t threads_of(pid_t pid) {
  std::error_code ignored;
  std::size_t n = 0;
  for (auto& task [[maybe_unused]] :
       std::filesystem::directory_iterator{"/proc/" + std::to_string(pid) + "/task", ignored})
    ++n;
  return n;
}

// The batches of many client recorders go to the server's one writer: those
// that arrive together share a commit, each run is numbered on its own, a
// batch the server refuses takes no other with it, and the server starts no
// thread per recorder.
BOOST_AUTO_TEST_CASE(record_batches_of_many_recorders_share_commits_and_one_writer_thread) {
  scratch dir;
  node_process server{{node_program, "--serve-store", dir / "served"}};
  constexpr int clients = 32;
  constexpr std::uint64_t forwards = 5;
  auto hands = writers_at(sys, server.port, clients);
  soma::store local{dir / "served", {.read_only = true}};
  auto before = local.backend().ask().version();
  auto threads_before = threads_of(server.pid);
  // Each client's recorder sends one batch at once, from a thread of its
  // own; the last client's names a run no store takes ("bad/run"), so its
  // batch is refused while the others' land.
  auto batch_of = [&](int i) {
    soma::detail::record_write w;
    w.recorder = 1000 + static_cast<std::uint64_t>(i);
    w.options.run = i == clients - 1 ? "bad/run" : "r" + std::to_string(i);
    w.options.summarising = {"loss"};
    for (std::uint64_t f = 1; f <= forwards; ++f)
      w.forwards.push_back({f, std::nullopt,
                            {soma::fact{"loss", {{"value", static_cast<double>(i)}}},
                             soma::fact{"finished", {{"took_us", 5}}}},
                            soma::outcome::ok, 5, now_us()});
    return soma::detail::encode_record_write(w);
  };
  auto sent = all_at_once(sys, hands, store_op::records, batch_of);
  std::vector<std::optional<soma::detail::record_numbers>> answers(clients);
  auto& refused = sent.refused;
  for (int i = 0; i < clients; ++i)
    if (sent.answers[i])
      answers[i] = soma::detail::decode_record_numbers(*sent.answers[i]);
  auto threads_after = threads_of(server.pid);
  auto commits = local.backend().ask().version() - before;
  BOOST_TEST_MESSAGE(clients - 1 << " batches in " << commits << " commits; server threads "
                                 << threads_before << " -> " << threads_after);
  BOOST_TEST(commits >= 1u);
  BOOST_TEST(commits <= std::uint64_t{clients / 2}, clients - 1 << " batches took " << commits << " commits");
  // A thread per recorder would add 31.
  BOOST_TEST(threads_after <= threads_before + 2, threads_before << " -> " << threads_after);
  BOOST_TEST(refused[clients - 1].find("bad/run") != std::string::npos, refused[clients - 1]);
  BOOST_TEST(!answers[clients - 1].has_value());
  for (int i = 0; i + 1 < clients; ++i) {
    BOOST_REQUIRE_MESSAGE(answers[i], "client " << i << ": " << refused[i]);
    BOOST_TEST(!answers[i]->error, soma::describe(answers[i]->error));
    BOOST_REQUIRE_EQUAL(answers[i]->numbered.size(), forwards);
    for (std::uint64_t f = 0; f < forwards; ++f) {
      BOOST_TEST(answers[i]->numbered[f].first == f + 1);
      BOOST_TEST(answers[i]->numbered[f].second == f); // each run numbered from 0 on its own
    }
    auto rows = soma::forwards(local, "r" + std::to_string(i));
    BOOST_REQUIRE_EQUAL(rows.size(), forwards);
    BOOST_TEST(rows.back().forward == forwards - 1);
  }
}

// Trials added and ended by many clients at once go to the server's one
// writer too: they share commits, each is numbered once, each end is kept,
// and an end the store refuses is said to its client alone.
BOOST_AUTO_TEST_CASE(trials_added_and_ended_together_share_commits_and_each_is_kept_once) {
  scratch dir;
  node_process server{{node_program, "--serve-store", dir / "served"}};
  constexpr int clients = 32;
  auto hands = writers_at(sys, server.port, clients);
  soma::store local{dir / "served", {.read_only = true}};
  auto before = local.backend().ask().version();
  auto added = all_at_once(sys, hands, store_op::trials_add, [](int i) {
    return soma::wire::encode_trials_add({"s", "f", {soma::values{{"i", std::int64_t{i}}}}});
  });
  auto commits = local.backend().ask().version() - before;
  BOOST_TEST_MESSAGE(clients << " adds in " << commits << " commits");
  BOOST_TEST(commits <= std::uint64_t{clients / 2}, clients << " adds took " << commits << " commits");
  std::set<std::uint64_t> numbers;
  for (int i = 0; i < clients; ++i) {
    BOOST_REQUIRE_MESSAGE(added.answers[i], "client " << i << ": " << added.refused[i]);
    for (auto n : soma::wire::decode_trial_numbers(*added.answers[i]))
      numbers.insert(n);
  }
  BOOST_TEST(numbers.size() == std::size_t{clients});
  BOOST_TEST(*numbers.rbegin() == std::uint64_t{clients - 1});
  // Each client claims one, in turn (a claim is a reader's), then all end
  // theirs at once; the last ends one it does not hold.
  std::vector<soma::trial_row> held;
  for (int i = 0; i < clients; ++i) {
    std::string failed;
    auto got = hands[i]->call(store_op::claim,
                              soma::wire::encode_claim_ask({"s", "c" + std::to_string(i), 0}), failed);
    BOOST_REQUIRE_MESSAGE(got, failed);
    auto t = soma::wire::decode_claim_answer(*got);
    BOOST_REQUIRE(t);
    held.push_back(*t);
  }
  before = local.backend().ask().version();
  auto ended = all_at_once(sys, hands, store_op::trial_end, [&](int i) {
    auto& t = held[i];
    auto claimant = i == clients - 1 ? std::string{"someone-else"} : "c" + std::to_string(i);
    return soma::wire::encode_trial_end({"s", t.number, t.attempt, claimant, soma::trial_state::done,
                                         soma::values{{"loss", 1.0 / (i + 1)}}, ""});
  });
  commits = local.backend().ask().version() - before;
  BOOST_TEST_MESSAGE(clients << " ends in " << commits << " commits");
  BOOST_TEST(commits <= std::uint64_t{clients / 2}, clients << " ends took " << commits << " commits");
  for (int i = 0; i < clients; ++i) {
    BOOST_REQUIRE_MESSAGE(ended.answers[i], "client " << i << ": " << ended.refused[i]);
    auto kept = soma::wire::decode_trial_ended(*ended.answers[i]);
    if (i == clients - 1) {
      BOOST_REQUIRE(!kept);
      BOOST_TEST(soma::describe(kept.error()).find("is not held by someone-else") != std::string::npos,
                 soma::describe(kept.error()));
    } else {
      BOOST_TEST(static_cast<bool>(kept), "client " << i);
    }
  }
  auto rows = soma::trials(local, "s");
  BOOST_REQUIRE_EQUAL(rows.size(), std::size_t{clients});
  std::size_t done = 0;
  for (auto& r : rows)
    if (r.state == soma::trial_state::done) {
      ++done;
      BOOST_TEST(r.attempt == 1u);
    }
  BOOST_TEST(done == std::size_t{clients - 1});
  // Bytes that are no TrialEnd are refused to their client as invalid, and
  // the writer goes on.
  std::string failed;
  BOOST_TEST(!hands[0]->call(store_op::trial_end, std::string(40, '\x7f'), failed));
  BOOST_TEST((hands[0]->kind == soma::store_trouble::invalid), failed);
  BOOST_TEST(failed.find("'trial_end' whose bytes are not its TrialEnd") != std::string::npos, failed);
  auto again = hands[1]->call(store_op::trials_add,
                              soma::wire::encode_trials_add({"s", "f", {soma::values{}}}), failed);
  BOOST_REQUIRE_MESSAGE(again, failed);
  BOOST_TEST(soma::wire::decode_trial_numbers(*again).front() == std::uint64_t{clients});
}

// Every kind of trouble a served store can meet reaches the soma command as
// data: its words and its exit code (docs/cli.md), 4 for what may succeed
// later, 2 for what will not; and the library's caller, as store_trouble.
BOOST_AUTO_TEST_CASE(each_kind_of_trouble_reaches_the_soma_command_with_its_words_and_exit_code) {
  auto store_at = [](std::uint16_t port) { return "soma://127.0.0.1:" + std::to_string(port); };
  auto has = [](const soma_ran& r, const std::string& words) {
    return r.text.find(words) != std::string::npos;
  };
  // Unreachable: nothing listens there.
  auto nobody = soma_run("runs --store " + store_at(static_cast<std::uint16_t>(server_port())));
  BOOST_TEST(nobody.status == 4, nobody.text);
  BOOST_TEST(has(nobody, "cannot reach the served store"), nobody.text);
  BOOST_TEST(has(nobody, "Connection refused"), nobody.text);
  // Refused: a soma-node that serves no store.
  {
    node_process plain{{node_program, "--nodes", test_nodes}};
    auto r = soma_run("runs --store " + store_at(plain.port));
    BOOST_TEST(r.status == 2, r.text);
    BOOST_TEST(has(r, "serves no store: start one with --serve-store DIR"), r.text);
  }
  scratch dir;
  {
    // One run with one damaged fact blob (forward 1's).
    soma::store s{dir / "served"};
    auto loss = [](double v) { return std::vector<soma::fact>{{"loss", {{"value", v}}}}; };
    write_run(s, "r", {loss(1.0), loss(0.5), loss(0.2)});
    s.env().write([&](MDB_txn* txn, auto& dbi) {
      s.env().put(txn, dbi(soma::detail::db::facts), soma::detail::record_key("r", 1),
                  std::string(48, '\x5a'));
    });
    // And forward 0's record, one bit of it: its seal no longer matches.
    auto key = soma::detail::record_key("r", 0);
    std::string bytes;
    s.env().read([&](MDB_txn* txn, const auto& dbi) {
      std::string_view v;
      BOOST_REQUIRE(s.env().get(txn, dbi(soma::detail::db::records), key, v));
      bytes = std::string{v};
    });
    bytes[bytes.size() / 2] ^= 0x01;
    s.env().write([&](MDB_txn* txn, auto& dbi) {
      s.env().put(txn, dbi(soma::detail::db::records), key, bytes);
    });
  }
  node_process server{{node_program, "--serve-store", dir / "served", "--store-sessions", "1"}};
  auto address = store_at(server.port);
  // Damaged: named where, exit 2; the caller's store_error says `damaged`.
  auto damaged = soma_run("facts r 1 --store " + address);
  BOOST_TEST(damaged.status == 2, damaged.text);
  BOOST_TEST(has(damaged, "the fact blob of forward 1 of run 'r'"), damaged.text);
  BOOST_TEST(has(damaged, "is damaged"), damaged.text);
  // A record passes through as the store keeps it, and the client finds its
  // damage: the message names the store as the client reached it.
  auto record = soma_run("forwards r --store " + address);
  BOOST_TEST(record.status == 2, record.text);
  BOOST_TEST(has(record, "forward 0 of run 'r' in the store '" + address + "'"), record.text);
  {
    auto reader = served(sys, address, {.read_only = true});
    try {
      (void)soma::facts(reader, "r", 1);
      BOOST_FAIL("a damaged blob was read through soma://");
    } catch (const soma::store_error& e) {
      BOOST_TEST(soma::to_string(e.trouble()) == "damaged", e.what());
    }
    BOOST_TEST(soma::facts(reader, "r", 2).size() == 1u); // the rest reads
    // Read-only: a write asked of a read-only session.
    try {
      reader.backend().put_reading(reading_of("w", now_us()));
      BOOST_FAIL("a read-only served store took a reading");
    } catch (const soma::store_error& e) {
      BOOST_TEST(soma::to_string(e.trouble()) == "read_only", e.what());
    }
  }
  // Busy: the one session it allows is held.
  BOOST_TEST(eventually([&] {
    hand_client holder{sys, server.port, soma::served::store_mode};
    if (!holder.session)
      return false;
    auto busy = soma_run("runs --store " + address);
    BOOST_TEST(busy.status == 4, busy.text);
    BOOST_TEST(has(busy, "has 1 sessions open, its limit (soma-node --store-sessions)"), busy.text);
    return true;
  }));
  // Timed out: the server is stopped, so it accepts a connection and says
  // nothing. The command ends within its bound (5 s to connect, 5 s to open
  // a session) and says so.
  BOOST_TEST(eventually([&] { return soma_run("standing --store " + address).status == 0; }));
  BOOST_REQUIRE(kill(server.pid, SIGSTOP) == 0);
  auto began = std::chrono::steady_clock::now();
  auto stopped = soma_run("standing --store " + address);
  auto took = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - began);
  kill(server.pid, SIGCONT);
  BOOST_TEST(stopped.status == 4, stopped.text);
  BOOST_TEST(has(stopped, "cannot reach the served store"), stopped.text);
  BOOST_TEST(has(stopped, "did not answer within its bound"), stopped.text);
  BOOST_TEST(took.count() < 15000, "the command took " << took.count() << " ms against a stopped server");
}

BOOST_AUTO_TEST_SUITE_END()
