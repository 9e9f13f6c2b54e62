#include <boost/test/unit_test.hpp>

#include <cstdio>

#include <caf/io/middleman.hpp>

#include "fixture.hpp"
#include "seed_nodes.hpp"
#include "soma/forward_error.hpp"
#include "soma/graph.hpp"
#include "soma/print.hpp"

using namespace soma_test;

namespace {

std::vector<std::string> lines_of(std::FILE* f) {
  std::rewind(f);
  std::vector<std::string> out;
  char buf[4096];
  while (std::fgets(buf, sizeof buf, f))
    out.emplace_back(buf);
  return out;
}

} // namespace

BOOST_FIXTURE_TEST_SUITE(watchers, system_fixture)

BOOST_AUTO_TEST_CASE(a_callable_an_actor_and_the_printer_each_see_the_whole_stream) {
  auto g = seed_graph(sys);
  auto in_actor = std::make_shared<collected>();
  auto actor = spawn_collector(sys, in_actor);
  std::vector<soma::fact> called;
  auto* file = std::tmpfile();
  BOOST_REQUIRE(file);
  for (int round = 0; round < 20; ++round)
    g.forward("the quick brown fox",
              {.watching = {[&](const soma::fact& f) { called.push_back(f); }, actor,
                            soma::printer{file}}});
  BOOST_REQUIRE(in_actor->wait_for(80));
  auto by_actor = in_actor->facts();
  auto printed = lines_of(file);
  std::fclose(file);
  BOOST_REQUIRE_EQUAL(called.size(), 80u);
  BOOST_REQUIRE_EQUAL(by_actor.size(), 80u);
  BOOST_REQUIRE_EQUAL(printed.size(), 80u);
  for (size_t i = 0; i < 80; ++i) {
    BOOST_TEST(called[i] == by_actor[i]);
    BOOST_TEST(soma::to_json(called[i]) + "\n" == printed[i]);
  }
  std::vector<std::string> one{"ran", "ran", "ran", "finished"};
  auto all = names(called);
  for (size_t i = 0; i < 80; i += 4)
    BOOST_TEST(std::vector<std::string>(all.begin() + i, all.begin() + i + 4) == one,
               boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(an_actor_has_every_fact_in_its_mailbox_before_forward_returns) {
  // What the caller tells an actor after forward returned (the seed's loss)
  // must arrive after all of that forward's facts.
  auto g = seed_graph(sys);
  auto into = std::make_shared<collected>();
  auto actor = spawn_collector(sys, into);
  for (int step = 0; step < 200; ++step) {
    g.forward("the quick brown fox", {.watching = actor});
    caf::anon_send(actor, soma::fact{"loss", {{"value", step}}});
  }
  BOOST_REQUIRE(into->wait_for(1000));
  auto facts = into->facts();
  BOOST_REQUIRE_EQUAL(facts.size(), 1000u);
  for (int step = 0; step < 200; ++step) {
    std::vector<std::string> expected{"ran", "ran", "ran", "finished", "loss"};
    std::vector<std::string> got;
    for (int i = 0; i < 5; ++i)
      got.push_back(facts[step * 5 + i].name);
    BOOST_TEST(got == expected, boost::test_tools::per_element());
    BOOST_TEST(num(facts[step * 5 + 4], "value") == step);
  }
}

BOOST_AUTO_TEST_CASE(a_whole_forward_watcher_gets_each_forward_as_one_message_in_order) {
  // Each forward's facts as one soma::forward_facts, sent when it ends: the
  // very facts a callable and a per-fact actor saw, in order, typed.
  auto g = seed_graph(sys);
  auto whole = std::make_shared<collected>(); // a "forward" marker, then its facts
  auto actor = sys.spawn([whole](caf::event_based_actor*) -> caf::behavior {
    return {[whole](const soma::forward_facts& x) {
      whole->push(soma::fact{"forward", {{"id", x.forward}, {"facts", x.facts.size()}}});
      for (auto& f : x.facts)
        whole->push(f);
    }};
  });
  auto per_fact = std::make_shared<collected>();
  auto each = spawn_collector(sys, per_fact);
  std::vector<soma::fact> called;
  for (int round = 0; round < 20; ++round)
    g.forward("the quick brown fox",
              {.watching = {[&](const soma::fact& f) { called.push_back(f); },
                            soma::watcher::whole_forwards(actor), each}});
  BOOST_CHECK_THROW(g.forward("", {.watching = {[&](const soma::fact& f) { called.push_back(f); },
                                                soma::watcher::whole_forwards(actor)}}),
                    soma::forward_error);
  BOOST_REQUIRE(whole->wait_for(20 * 5 + 1 + 4));
  BOOST_REQUIRE(per_fact->wait_for(80));
  auto got = whole->facts();
  BOOST_REQUIRE_EQUAL(got.size(), 20u * 5 + 1 + 4); // 20 x (marker + 4), then marker + 4
  BOOST_REQUIRE_EQUAL(called.size(), 84u);
  std::int64_t last_id = -1;
  std::size_t c = 0;
  for (std::size_t at = 0; at < got.size();) {
    BOOST_REQUIRE(got[at].name == "forward");
    auto id = got[at]["id"].integer_or(-1);
    BOOST_TEST(id > last_id); // one message a forward, in the order they ended
    last_id = id;
    auto n = static_cast<std::size_t>(got[at]["facts"].integer_or(0));
    ++at;
    for (std::size_t i = 0; i < n; ++i, ++at, ++c)
      BOOST_TEST(got[at] == called[c]);
    BOOST_TEST((got[at - 1].name == "finished" || got[at - 1].name == "broke"));
  }
  BOOST_TEST(c == called.size());
  BOOST_TEST(got.back().name == "broke");
  BOOST_TEST(got[1]["took_us"].is_integer()); // typed, as every watcher is told
  auto one_by_one = per_fact->facts();
  for (std::size_t i = 0; i < 80; ++i)
    BOOST_TEST(one_by_one[i] == called[i]);
}

BOOST_AUTO_TEST_CASE(two_whole_forward_watchers_each_get_every_forward_whole) {
  // One letter takes the forward's gathered facts, the other a copy: both
  // hold the same facts, and a forward's letter holds none of the last's.
  auto g = seed_graph(sys);
  auto spawn_whole = [&](std::shared_ptr<collected> into) {
    return sys.spawn([into](caf::event_based_actor*) -> caf::behavior {
      return {[into](const soma::forward_facts& x) {
        into->push(soma::fact{"forward", {{"facts", x.facts.size()}}});
        for (auto& f : x.facts)
          into->push(f);
      }};
    });
  };
  auto first = std::make_shared<collected>();
  auto second = std::make_shared<collected>();
  auto a = spawn_whole(first);
  auto b = spawn_whole(second);
  std::vector<soma::fact> called;
  for (int round = 0; round < 30; ++round) {
    try { // every third forward breaks: its letters hold failed and broke
      g.forward(round % 3 == 2 ? "" : "the quick brown fox",
                {.watching = {[&](const soma::fact& f) { called.push_back(f); },
                              soma::watcher::whole_forwards(a), soma::watcher::whole_forwards(b)}});
    } catch (const soma::forward_error&) {
    }
  }
  BOOST_REQUIRE(first->wait_for(30 + called.size()));
  BOOST_REQUIRE(second->wait_for(30 + called.size()));
  auto x = first->facts();
  auto y = second->facts();
  BOOST_REQUIRE_EQUAL(x.size(), 30 + called.size());
  BOOST_TEST(x == y, boost::test_tools::per_element());
  std::size_t c = 0;
  for (std::size_t at = 0; at < x.size();) {
    BOOST_REQUIRE(x[at].name == "forward");
    auto n = static_cast<std::size_t>(x[at]["facts"].integer_or(0));
    ++at;
    for (std::size_t i = 0; i < n; ++i, ++at, ++c)
      BOOST_TEST(x[at] == called[c]);
  }
  BOOST_TEST(c == called.size());
}

BOOST_AUTO_TEST_CASE(an_actor_of_another_actor_system_watches_through_the_network) {
  // A fact told to a remote actor's proxy leaves its letter as a message
  // (detail/letter.hpp): the other system, over loopback, gets every fact.
  soma::system_config other_cfg;
  caf::actor_system other{other_cfg};
  auto far = std::make_shared<collected>();
  auto collector = spawn_collector(other, far);
  auto port = other.middleman().publish(collector, 0, "127.0.0.1");
  BOOST_REQUIRE_MESSAGE(port, (port ? "" : other.render(port.error())));
  auto proxy = sys.middleman().remote_actor("127.0.0.1", *port);
  BOOST_REQUIRE_MESSAGE(proxy, (proxy ? "" : sys.render(proxy.error())));
  auto g = seed_graph(sys);
  std::vector<soma::fact> called;
  for (int round = 0; round < 10; ++round)
    g.forward("the quick brown fox",
              {.watching = {[&](const soma::fact& f) { called.push_back(f); }, *proxy}});
  BOOST_REQUIRE(far->wait_for(40));
  BOOST_TEST(far->facts() == called, boost::test_tools::per_element());
  caf::anon_send_exit(collector, caf::exit_reason::user_shutdown);
}

BOOST_AUTO_TEST_CASE(a_watcher_that_throws_is_dropped_and_the_others_see_everything) {
  auto g = seed_graph(sys);
  auto into = std::make_shared<collected>();
  auto actor = spawn_collector(sys, into);
  std::vector<soma::fact> before, after, bad;
  auto thrower = [&](const soma::fact& f) {
    bad.push_back(f);
    if (bad.size() == 2)
      throw std::runtime_error("watcher broke on purpose");
  };
  try {
    g.forward("the quick brown fox",
              {.watching = {[&](const soma::fact& f) { before.push_back(f); }, thrower,
                            [&](const soma::fact& f) { after.push_back(f); }, actor}});
    BOOST_FAIL("forward hid a watcher's exception");
  } catch (const soma::watcher_error& e) {
    BOOST_TEST(std::string{e.what()}
               == "watcher 1 threw while told 'ran': watcher broke on purpose");
  }
  BOOST_TEST(bad.size() == 2u);
  BOOST_REQUIRE_EQUAL(before.size(), 4u);
  BOOST_REQUIRE_EQUAL(after.size(), 4u);
  BOOST_TEST(before == after);
  BOOST_REQUIRE(into->wait_for(4));
  BOOST_TEST(into->facts() == before);
  // The graph and the watcher go on: the next forward tells it again.
  bad.clear();
  before.clear();
  after.clear();
  BOOST_TEST(g.forward("a bb", {.watching = {[&](const soma::fact& f) { before.push_back(f); }}}) == 0.75);
  BOOST_TEST(before.size() == 4u);
}

BOOST_AUTO_TEST_CASE(a_slow_watcher_slows_but_never_reorders_another) {
  auto g = seed_graph(sys);
  auto into = std::make_shared<collected>();
  auto slow_actor = sys.spawn([into](caf::event_based_actor*) -> caf::behavior {
    return {[into](const soma::fact& f) {
      std::this_thread::sleep_for(2ms);
      into->push(f);
    }};
  });
  auto fast = std::make_shared<collected>();
  auto fast_actor = spawn_collector(sys, fast);
  std::vector<soma::fact> slow_called, fast_called;
  for (int round = 0; round < 5; ++round)
    g.forward("one two three",
              {.watching = {[&](const soma::fact& f) {
                              std::this_thread::sleep_for(1ms);
                              slow_called.push_back(f);
                            },
                            [&](const soma::fact& f) { fast_called.push_back(f); }, slow_actor,
                            fast_actor}});
  BOOST_REQUIRE(into->wait_for(20));
  BOOST_REQUIRE(fast->wait_for(20));
  BOOST_TEST(slow_called == fast_called);
  BOOST_TEST(into->facts() == fast_called);
  BOOST_TEST(fast->facts() == fast_called);
}

BOOST_AUTO_TEST_CASE(a_typed_actor_can_watch) {
  using fact_sink = caf::typed_actor<caf::reacts_to<soma::fact>>;
  auto into = std::make_shared<collected>();
  fact_sink typed = sys.spawn([into](fact_sink::pointer) -> fact_sink::behavior_type {
    return {[into](const soma::fact& f) { into->push(f); }};
  });
  auto g = seed_graph(sys);
  g.forward("a b", {.watching = typed});
  BOOST_REQUIRE(into->wait_for(4));
  BOOST_TEST(into->facts().back().name == "finished");
}

BOOST_AUTO_TEST_SUITE_END()
