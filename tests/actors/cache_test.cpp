#include <boost/test/unit_test.hpp>

#include <atomic>
#include <future>
#include <thread>

#include "../store/child.hpp"
#include "../store/scratch.hpp"
#include "fixture.hpp"
#include "soma/store/cache.hpp"
#include "soma/store/detail/environment.hpp"

using namespace soma_test;

namespace {

// Words to their lengths, counting how often it really ran.
struct Counted : soma::node<Counted, std::string, std::vector<double>> {
  std::shared_ptr<std::atomic<int>> calls = std::make_shared<std::atomic<int>>(0);
  Out forward(const In& text, soma::context& ctx) override {
    ++*calls;
    return Tokenize{}.forward(text, ctx);
  }
};

struct cache_fixture : system_fixture {
  scratch tmp;
  soma::store kept{tmp / "kept"};

  static std::string said(const soma::fact& f) {
    return f.name + (f.has("node") ? " " + std::string{f["node"].text()} : "");
  }

  template <class G>
  std::vector<std::string> run(G& g, const std::string& text, std::optional<soma::store> s) {
    std::vector<std::string> seen;
    g.forward(text, {.watching = [&](const soma::fact& f) { seen.push_back(said(f)); },
                     .store = std::move(s)});
    return seen;
  }
};

} // namespace

BOOST_FIXTURE_TEST_SUITE(cache, cache_fixture)

BOOST_AUTO_TEST_CASE(a_miss_runs_and_keeps_a_hit_recalls_without_running) {
  Counted tokenize;
  auto calls = tokenize.calls;
  auto g = soma::graph::somatize(sys, std::move(tokenize).named("tokenize").frozen().cached()
                                        >> Embed{}.named("embed") >> Score{}.named("score"));
  std::vector<std::string> first{"ran tokenize", "kept tokenize", "ran embed", "ran score", "finished"};
  std::vector<std::string> second{"recalled tokenize", "ran embed", "ran score", "finished"};
  BOOST_TEST(run(g, "the quick brown fox", kept) == first, boost::test_tools::per_element());
  BOOST_TEST(run(g, "the quick brown fox", kept) == second, boost::test_tools::per_element());
  BOOST_TEST(calls->load() == 1);
  // The value is the same either way.
  BOOST_TEST(g.forward("the quick brown fox", {.store = kept}) == 2.0);
  BOOST_TEST(calls->load() == 1);
  // Watched by nobody (no `kept` is made), a miss still keeps its output.
  BOOST_TEST(g.forward("a lazy dog", {.store = kept}) == g.forward("a lazy dog"));
  BOOST_TEST(calls->load() == 3);
  std::vector<std::string> recalled{"recalled tokenize", "ran embed", "ran score", "finished"};
  BOOST_TEST(run(g, "a lazy dog", kept) == recalled, boost::test_tools::per_element());
  BOOST_TEST(calls->load() == 3);
}

BOOST_AUTO_TEST_CASE(recalled_and_kept_carry_the_seeds_fields_and_the_size) {
  auto g = soma::graph::somatize(sys, Tokenize{}.named("tokenize").frozen("3").cached());
  std::vector<soma::fact> facts;
  for (int i = 0; i < 2; ++i)
    g.forward("a bb ccc", {.watching = [&](const soma::fact& f) { facts.push_back(f); }, .store = kept});
  BOOST_REQUIRE_EQUAL(facts.size(), 5u); // ran, kept, finished; recalled, finished
  auto& k = facts[1];
  BOOST_TEST(k.name == "kept");
  BOOST_REQUIRE_EQUAL(k.fields.size(), 4u);
  BOOST_TEST(k.fields[0].key == "node");
  BOOST_TEST(k.fields[1].key == "began_us");
  BOOST_TEST(k.fields[2].key == "took_us");
  BOOST_TEST(k.fields[3].key == "bytes");
  auto& r = facts[3];
  BOOST_TEST(r.name == "recalled");
  BOOST_TEST(r["bytes"] == k["bytes"]);
  BOOST_TEST(static_cast<std::uint64_t>(k["bytes"].integer_or(-1)) == soma::encode(std::vector<double>{1, 2, 3}).size());
  auto ls = soma::cache_entries(kept);
  BOOST_REQUIRE_EQUAL(ls.size(), 1u);
  BOOST_TEST(ls[0].node == "tokenize");
  BOOST_TEST(ls[0].version == "3");
  BOOST_TEST(ls[0].type == "Tokenize");
}

BOOST_AUTO_TEST_CASE(another_input_or_version_is_a_miss) {
  auto v1 = soma::graph::somatize(sys, Tokenize{}.named("tokenize").frozen("1").cached());
  auto v2 = soma::graph::somatize(sys, Tokenize{}.named("tokenize").frozen("2").cached());
  std::vector<std::string> miss{"ran tokenize", "kept tokenize", "finished"};
  std::vector<std::string> hit{"recalled tokenize", "finished"};
  BOOST_TEST(run(v1, "a b", kept) == miss, boost::test_tools::per_element());
  BOOST_TEST(run(v1, "a b c", kept) == miss, boost::test_tools::per_element());
  BOOST_TEST(run(v2, "a b", kept) == miss, boost::test_tools::per_element());
  BOOST_TEST(run(v1, "a b", kept) == hit, boost::test_tools::per_element());
  BOOST_TEST(run(v2, "a b", kept) == hit, boost::test_tools::per_element());
  // Another name is another node, even of the same type and version.
  auto other = soma::graph::somatize(sys, Tokenize{}.named("words").frozen("1").cached());
  BOOST_TEST(run(other, "a b", kept) == (std::vector<std::string>{"ran words", "kept words", "finished"}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(cached_without_frozen_is_refused_when_the_graph_is_made) {
  try {
    auto g = soma::graph::somatize(sys, Tokenize{}.named("tokenize").cached() >> Embed{});
    BOOST_FAIL("a cached node that is not frozen was accepted");
  } catch (const std::invalid_argument& e) {
    BOOST_TEST(std::string{e.what()}.starts_with("node 'tokenize' is cached but not frozen: what "
                                                 "is kept has to be settled"));
  }
}

BOOST_AUTO_TEST_CASE(a_cached_node_with_a_name_too_long_for_a_key_is_refused) {
  BOOST_CHECK_EXCEPTION(
    soma::graph::somatize(sys, Tokenize{}.named(std::string(401, 'n')).frozen().cached()),
    std::invalid_argument, [](const std::invalid_argument& e) {
      return std::string{e.what()}.find("has at most 400 bytes") != std::string::npos;
    });
  auto g = soma::graph::somatize(sys, Tokenize{}.named(std::string(400, 'n')).frozen().cached());
  (void) run(g, "a", kept);
  BOOST_TEST(run(g, "a", kept).front() == "recalled " + std::string(400, 'n'));
}

BOOST_AUTO_TEST_CASE(no_store_runs_uncached_and_says_so_once) {
  Counted tokenize;
  auto calls = tokenize.calls;
  auto g = soma::graph::somatize(sys, std::move(tokenize).named("tokenize").frozen().cached());
  // A forward nobody watches makes no facts (forward_state::heard): the one
  // "no store" waits for the first forward someone hears.
  BOOST_TEST(g.forward("a b").size() == 2u);
  std::vector<soma::fact> facts;
  for (int i = 0; i < 3; ++i)
    g.forward("a b", {.watching = [&](const soma::fact& f) { facts.push_back(f); }});
  BOOST_TEST(calls->load() == 4);
  BOOST_REQUIRE_EQUAL(facts.size(), 6u);
  BOOST_TEST(facts[0].name == "ran");
  BOOST_TEST(facts[0]["cache"] == "no store");
  BOOST_TEST(!facts[2].has("cache"));
  BOOST_TEST(!facts[4].has("cache"));
}

BOOST_AUTO_TEST_CASE(a_damaged_entry_is_a_miss_and_is_written_again) {
  Counted tokenize;
  auto calls = tokenize.calls;
  auto g = soma::graph::somatize(sys, std::move(tokenize).named("tokenize").frozen().cached());
  (void) run(g, "a b", kept);
  // Overwrite the entry's bytes.
  kept.env().write([&](MDB_txn* txn, auto& dbi) {
    auto cache = dbi(soma::detail::db::cache);
    MDB_cursor* cur = nullptr;
    mdb_cursor_open(txn, cache, &cur);
    MDB_val k, v;
    BOOST_REQUIRE(mdb_cursor_get(cur, &k, &v, MDB_FIRST) == 0);
    std::string key{soma::detail::view(k)};
    mdb_cursor_close(cur);
    kept.env().put(txn, cache, key, std::string(64, '\x7f'));
  });
  std::vector<std::string> again{"ran tokenize", "kept tokenize", "finished"};
  BOOST_TEST(run(g, "a b", kept) == again, boost::test_tools::per_element());
  BOOST_TEST(run(g, "a b", kept) == (std::vector<std::string>{"recalled tokenize", "finished"}),
             boost::test_tools::per_element());
  BOOST_TEST(calls->load() == 2);
  // Rewriting it left one entry, and one age for it: clearing finds one.
  BOOST_TEST(soma::cache_entries(kept).size() == 1u);
  BOOST_TEST(soma::cache_clear(kept) == 1u);
}

BOOST_AUTO_TEST_CASE(clearing_forgets_one_nodes_entries_or_all) {
  auto a = soma::graph::somatize(sys, Tokenize{}.named("a").frozen().cached());
  auto b = soma::graph::somatize(sys, Tokenize{}.named("b").frozen().cached());
  for (auto text : {"x", "x y", "x y z"}) {
    (void) run(a, text, kept);
    (void) run(b, text, kept);
  }
  BOOST_TEST(soma::cache_entries(kept).size() == 6u);
  BOOST_TEST(soma::cache_entries(kept, "a").size() == 3u);
  BOOST_TEST(soma::cache_clear(kept, "a") == 3u);
  BOOST_TEST(soma::cache_entries(kept, "a").empty());
  BOOST_TEST(soma::cache_entries(kept, "b").size() == 3u);
  BOOST_TEST(run(a, "x", kept).front() == "ran a");
  BOOST_TEST(run(b, "x", kept).front() == "recalled b");
  BOOST_TEST(soma::cache_clear(kept) == 4u);
  BOOST_TEST(soma::cache_entries(kept).empty());
}

BOOST_AUTO_TEST_CASE(a_size_bound_evicts_the_oldest_first) {
  soma::store bounded{tmp / "bounded", {.cache_limit = 4096}};
  auto g = soma::graph::somatize(sys, Tokenize{}.named("t").frozen().cached());
  std::string words;
  for (int i = 0; i < 40; ++i) {
    words += "w" + std::to_string(i) + " ";
    (void) run(g, words, bounded);
  }
  auto ls = soma::cache_entries(bounded);
  std::uint64_t total = 0;
  for (auto& e : ls)
    total += e.bytes;
  BOOST_TEST(total <= 4096u);
  BOOST_TEST(ls.size() < 40u);
  BOOST_TEST(!ls.empty());
  // The newest stayed, the oldest went.
  BOOST_TEST(run(g, words, bounded).front() == "recalled t");
  BOOST_TEST(run(g, "w0 ", bounded).front() == "ran t");
  // An output larger than the whole limit is not kept, and evicts nothing.
  auto before = soma::cache_entries(bounded).size();
  std::string huge;
  for (int i = 0; i < 1000; ++i) // 1000 doubles: 8 KB, twice the limit
    huge += "word ";
  auto said = run(g, huge, bounded);
  BOOST_TEST(said == (std::vector<std::string>{"ran t", "finished"}), boost::test_tools::per_element());
  BOOST_TEST(soma::cache_entries(bounded).size() == before);
}

BOOST_AUTO_TEST_CASE(the_limit_is_the_handles_own) {
  // An unbounded handle to the directory first (as a recorder's might be),
  // then a bounded one: forwards given the bounded one keep within it.
  soma::store open_first{tmp / "shared"};
  soma::store bounded{tmp / "shared", {.cache_limit = 1024}};
  auto g = soma::graph::somatize(sys, Tokenize{}.named("t").frozen().cached());
  std::string words;
  for (int i = 0; i < 30; ++i) {
    words += "w" + std::to_string(i) + " ";
    (void) run(g, words, bounded);
  }
  std::uint64_t total = 0;
  for (auto& e : soma::cache_entries(open_first))
    total += e.bytes;
  BOOST_TEST(total <= 1024u);
}

BOOST_AUTO_TEST_CASE(two_processes_share_one_store) {
  for (auto expected : {"ran tokenize,kept tokenize,ran embed,ran score,finished",
                        "recalled tokenize,ran embed,ran score,finished"}) {
    child c{{SOMA_CACHE_CHILD, tmp / "shared", "the quick brown fox"}};
    auto line = c.line(std::chrono::seconds{30});
    BOOST_REQUIRE(line);
    BOOST_TEST(*line == expected);
    BOOST_TEST(c.wait() == 0);
  }
}

BOOST_AUTO_TEST_SUITE_END()

// A miss is kept by the node's cache writer, a detached actor: while LMDB's
// write lock is taken (another writer, a slow disk), the node waits for it
// but the CAF worker does not, so other graphs go on. With one worker
// thread, a node that wrote itself would stop every actor of the process.
BOOST_AUTO_TEST_CASE(a_miss_waiting_for_the_write_lock_holds_no_worker) {
  soma::system_config cfg;
  cfg.set("scheduler.max-threads", 1);
  caf::actor_system sys{cfg};
  scratch tmp;
  soma::store kept{tmp / "kept"};
  auto cached = soma::graph::somatize(sys, Tokenize{}.named("tokenize").frozen().cached()
                                             >> Embed{}.named("embed") >> Score{}.named("score"));
  auto plain = soma::graph::somatize(sys, Tokenize{}.named("t") >> Embed{}.named("e")
                                            >> Score{}.named("s"));
  auto expected = plain.forward("a bc");
  std::promise<void> locked, release;
  auto released = release.get_future().share();
  std::thread holder{[&] {
    kept.env().write([&](MDB_txn*, auto&) {
      locked.set_value();
      released.wait();
    });
  }};
  locked.get_future().wait();
  collected seen;
  std::thread missing{[&] {
    cached.forward("words to keep", {.watching = [&](const soma::fact& f) { seen.push(f); },
                                     .store = kept});
  }};
  // The cached forward ran tokenize and now waits on the lock ...
  BOOST_TEST(seen.wait_for(1));
  // ... and another graph's forwards still run on the one worker.
  bool went_on = true;
  for (int i = 0; i < 3 && went_on; ++i) {
    try {
      went_on = plain.forward("a bc", {.deadline = std::chrono::seconds{2}}) == expected;
    } catch (const soma::forward_error& e) {
      BOOST_TEST_MESSAGE("while the write lock was held: " << e.what());
      went_on = false;
    }
  }
  BOOST_TEST(went_on); // else the worker thread waited on LMDB's lock
  release.set_value();
  missing.join();
  holder.join();
  std::vector<std::string> names;
  for (auto& f : seen.facts())
    names.push_back(f.name + (f.has("node") ? " " + std::string{f["node"].text()} : ""));
  std::vector<std::string> want{"ran tokenize", "kept tokenize", "ran embed", "ran score",
                                "finished"};
  BOOST_TEST(names == want, boost::test_tools::per_element());
  BOOST_TEST(soma::cache_entries(kept).size() == 1u);
}
