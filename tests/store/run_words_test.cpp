// A run's words (format 4, docs/formats.md): the record log keeps them in
// the transaction that writes the blobs naming them, so every reader reads
// every blob back, whoever wrote the run and however its writes went: two
// writers of one run adding words in turn, a write whose transaction did not
// commit, a run written over, a run deleted (its words go with it), and
// every way a store is read (a blob, a tail, a curve not summarised, nodes,
// check). Damaged words are damage, said once by check.

#include <boost/test/unit_test.hpp>

#include <functional>
#include <string>
#include <vector>

#include "scratch.hpp"
#include "soma/detail/run_words.hpp"
#include "soma/store/backend.hpp"
#include "soma/store/check.hpp"
#include "soma/store/deleting.hpp"
#include "soma/store/detail/environment.hpp"
#include "soma/store/detail/numbering.hpp"
#include "soma/store/detail/record.hpp"
#include "soma/store/keys.hpp"
#include "soma/store/readers.hpp"
#include "soma/store/record_log.hpp"
#include "soma/store/tails.hpp"

namespace {

using soma::detail::db;
using dbi_fn = std::function<MDB_dbi(db)>;

// Forward n of a writer that names its nodes and its metric after `who`.
std::vector<soma::fact> facts_of(const std::string& who, std::uint64_t n) {
  auto k = static_cast<std::int64_t>(n);
  return {
    {"ran", {{"node", who + "-load"}, {"began_us", k}, {"took_us", 2 * k}}},
    {"ran", {{"node", "shared"}, {"began_us", k + 1}, {"took_us", 1}}},
    {who + "-loss", {{"value", 0.5 * static_cast<double>(n)}, {"step", k}}},
    {"finished", {{"took_us", 3 * k + 1}}},
  };
}

// Writes `facts` as one batch through `log`.
void write(soma::detail::record_log& log, std::vector<std::vector<soma::fact>>& facts) {
  std::vector<soma::detail::log_entry> entries;
  for (auto& f : facts)
    entries.push_back({0, std::nullopt,
                       soma::detail::make_record(f, 0, soma::outcome::ok, 1, 1'900'000'000'000'000, {}),
                       &f});
  (void) log.write(entries, {});
}

soma::detail::record_log log_of(soma::store& s, const std::string& run, bool overwrite = false) {
  return soma::detail::record_log{s.backend().local(), {run, {}, overwrite}};
}

std::vector<std::string> words_in(const soma::store& s, const std::string& run) {
  auto env = s.backend().local();
  std::vector<std::string> out;
  env->read([&](MDB_txn* txn, const dbi_fn& dbi) {
    out = soma::detail::words_of(*env, txn, dbi(db::meta), run).all();
  });
  return out;
}

} // namespace

BOOST_AUTO_TEST_SUITE(run_words)

BOOST_AUTO_TEST_CASE(two_writers_of_one_run_add_words_in_turn_and_every_blob_reads_back) {
  soma_test::scratch dir;
  soma::store s{dir / "s"};
  auto a = log_of(s, "r");
  auto b = log_of(s, "r");
  std::vector<std::vector<soma::fact>> written;
  for (std::uint64_t round = 0; round < 3; ++round) {
    std::vector<std::vector<soma::fact>> from_a{facts_of("a", 2 * round)};
    std::vector<std::vector<soma::fact>> from_b{facts_of("b", 2 * round + 1)};
    write(a, from_a); // each writer's words cached from its last write; the other's came since
    write(b, from_b);
    written.push_back(from_a[0]);
    written.push_back(from_b[0]);
  }
  BOOST_TEST((words_in(s, "r") == std::vector<std::string>{"a-load", "shared", "a-loss", "step",
                                                           "b-load", "b-loss"}));
  for (std::uint64_t n = 0; n < written.size(); ++n)
    BOOST_TEST((soma::facts(s, "r", n) == written[n]), "forward " << n);
  auto report = soma::check(s);
  BOOST_TEST(report.damaged.empty());
}

BOOST_AUTO_TEST_CASE(words_added_by_a_write_that_did_not_commit_are_written_by_the_next) {
  soma_test::scratch dir;
  soma::store s{dir / "s"};
  auto log = log_of(s, "r");
  auto env = s.backend().local();
  std::vector<std::vector<soma::fact>> first{facts_of("a", 0)};
  std::vector<soma::detail::log_entry> entries{
    {0, std::nullopt, soma::detail::make_record(first[0], 0, soma::outcome::ok, 1, 0, {}), &first[0]}};
  // Staged, then the transaction fails: nothing of it is kept.
  BOOST_CHECK_THROW(env->write([&](MDB_txn* txn, const dbi_fn& dbi) {
                      (void) log.stage(txn, dbi, entries, {});
                      throw soma::store_error("the disk is full");
                    }),
                    soma::store_error);
  BOOST_TEST(words_in(s, "r").empty());
  std::vector<std::vector<soma::fact>> second{facts_of("a", 1)};
  write(log, second);
  BOOST_TEST((words_in(s, "r") == std::vector<std::string>{"a-load", "shared", "a-loss", "step"}));
  BOOST_TEST((soma::facts(s, "r", 0) == second[0]));
  BOOST_TEST(soma::check(s).damaged.empty());
}

BOOST_AUTO_TEST_CASE(every_reader_reads_a_blob_through_its_runs_words) {
  soma_test::scratch dir;
  soma::store s{dir / "s"};
  auto log = log_of(s, "r");
  std::vector<std::vector<soma::fact>> batch;
  for (std::uint64_t n = 0; n < 5; ++n)
    batch.push_back(facts_of("a", n));
  write(log, batch);
  // A tail with its blobs.
  soma::tail_options o;
  o.run = "r";
  o.facts = 2;
  auto tails = soma::tails(s, o);
  BOOST_TEST_REQUIRE(tails.size() == 1u);
  BOOST_TEST_REQUIRE(tails[0].facts.size() == 2u);
  BOOST_TEST((tails[0].facts[1] == batch[4]));
  // A curve of a fact the records do not summarise: read from the blobs.
  auto c = soma::curve(s, "r", "a-loss.step");
  BOOST_TEST_REQUIRE(c.size() == 5u);
  BOOST_TEST(c[3].second == 3.0);
  // Nodes, tallied from the blobs: the names the words hold.
  auto nodes = soma::nodes(s, "r");
  std::vector<std::string> names;
  for (auto& row : nodes)
    names.push_back(row.node);
  std::sort(names.begin(), names.end());
  BOOST_TEST((names == std::vector<std::string>{"a-load", "shared"}));
}

BOOST_AUTO_TEST_CASE(a_run_deleted_takes_its_words_and_one_written_over_keeps_them) {
  soma_test::scratch dir;
  soma::store s{dir / "s"};
  {
    auto log = log_of(s, "r");
    std::vector<std::vector<soma::fact>> batch{facts_of("a", 0)};
    write(log, batch);
  }
  {
    auto over = log_of(s, "r", true); // written over: numbers already given still mean their words
    std::vector<std::vector<soma::fact>> batch{facts_of("b", 0)};
    write(over, batch);
    BOOST_TEST((words_in(s, "r") == std::vector<std::string>{"a-load", "shared", "a-loss", "step",
                                                             "b-load", "b-loss"}));
    BOOST_TEST((soma::facts(s, "r", 0) == batch[0]));
  }
  BOOST_TEST(soma::delete_run(s, "r") == 1u);
  BOOST_TEST(words_in(s, "r").empty());
  auto log = log_of(s, "r");
  std::vector<std::vector<soma::fact>> batch{facts_of("c", 0)};
  write(log, batch);
  BOOST_TEST((words_in(s, "r") == std::vector<std::string>{"c-load", "shared", "c-loss", "step"}));
  BOOST_TEST((soma::facts(s, "r", 0) == batch[0]));
  BOOST_TEST(soma::check(s).damaged.empty());
}

BOOST_AUTO_TEST_CASE(damaged_words_are_said_once_by_check_and_by_every_reader_of_a_blob) {
  soma_test::scratch dir;
  soma::store s{dir / "s"};
  auto log = log_of(s, "r");
  std::vector<std::vector<soma::fact>> batch{facts_of("a", 0), facts_of("a", 1)};
  write(log, batch);
  auto env = s.backend().local();
  env->write([&](MDB_txn* txn, const dbi_fn& dbi) {
    auto key = soma::detail::words_key("r");
    std::string_view was;
    BOOST_TEST_REQUIRE(env->get(txn, dbi(db::meta), key, was));
    std::string bad{was};
    bad.back() ^= 1;
    env->put(txn, dbi(db::meta), key, bad);
  });
  try {
    (void) soma::facts(s, "r", 1);
    BOOST_FAIL("damaged words were read");
  } catch (const soma::store_error& e) {
    BOOST_TEST(std::string{e.what()}.starts_with("the words of run 'r' in the store '" + (dir / "s")
                                                 + "' is damaged"),
               e.what());
    BOOST_TEST((e.trouble() == soma::store_trouble::damaged));
  }
  auto report = soma::check(s);
  BOOST_TEST_REQUIRE(report.damaged.size() == 1u); // the words, not each blob again
  BOOST_TEST(report.damaged[0].database == "meta");
  BOOST_TEST(report.damaged[0].key == "words/r");
  // The records still read: they need no words.
  BOOST_TEST(soma::forwards(s, "r").size() == 2u);
}

BOOST_AUTO_TEST_SUITE_END()
