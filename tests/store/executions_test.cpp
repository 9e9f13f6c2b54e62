// A run's executions (soma::execution, docs/recording.md "Running a
// program again"): each record log that writes a run is one, from its first
// write, with the forward it began at and who it was; a served client's
// recorder that comes back (the same once_for) goes on with its own; an
// overwrite starts the list again; a run an older soma wrote counts its
// forwards as one execution of unknown origin. What runs() and
// run_summary() say, kept in the run's metadata.

#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

#include <unistd.h>

#include "scratch.hpp"
#include "soma/store/backend.hpp"
#include "soma/store/detail/environment.hpp"
#include "soma/store/detail/record.hpp"
#include "soma/store/keys.hpp"
#include "soma/store/readers.hpp"
#include "soma/store/record_log.hpp"

namespace {

using soma::detail::db;

// Writes `count` forwards through `log`, in one batch.
void write(soma::detail::record_log& log, std::size_t count) {
  std::vector<soma::fact> facts{{"ran", {{"node", "a"}, {"took_us", 1}}}};
  std::vector<soma::detail::log_entry> entries;
  for (std::size_t i = 0; i < count; ++i)
    entries.push_back({0, std::nullopt, soma::detail::make_record(facts, 0, soma::outcome::ok, 1, 0, {}),
                       &facts});
  (void) log.write(entries, {});
}

soma::detail::record_log log_of(soma::store& s, const std::string& run, bool overwrite = false,
                                std::uint64_t once_for = 0, std::string client = {}) {
  soma::detail::log_options o{run, {}, overwrite, once_for};
  o.writer = {"h", "boot", static_cast<std::uint32_t>(::getpid()), 1, std::move(client)};
  return soma::detail::record_log{s.backend().local(), o};
}

} // namespace

BOOST_AUTO_TEST_SUITE(executions)

BOOST_AUTO_TEST_CASE(each_writer_of_a_run_is_an_execution_from_the_forward_it_began_at) {
  soma_test::scratch dir;
  soma::store s{dir / "s"};
  auto before = std::chrono::system_clock::now();
  {
    auto first = log_of(s, "r");
    write(first, 3);
    write(first, 2); // its second write: the same execution
    BOOST_TEST(soma::run_summary(s, "r").execution_count() == 1u);
  }
  auto second = log_of(s, "r");
  write(second, 4);
  auto row = soma::run_summary(s, "r");
  BOOST_TEST(row.forwards == 9u);
  BOOST_TEST_REQUIRE(row.executions.size() == 2u);
  BOOST_TEST(row.execution_count() == 2u);
  BOOST_TEST(row.executions[0].forward == 0u);
  BOOST_TEST(row.executions[1].forward == 5u);
  BOOST_TEST(row.executions[1].host == "h");
  BOOST_TEST(row.executions[1].pid == static_cast<std::uint32_t>(::getpid()));
  auto since = std::chrono::duration_cast<std::chrono::microseconds>(before.time_since_epoch()).count();
  BOOST_TEST(row.executions[0].began_us >= since);
  BOOST_TEST(row.executions[1].began_us >= row.executions[0].began_us);
  BOOST_TEST(row.executions[0].recorder != row.executions[1].recorder);
  // runs() says the same.
  auto all = soma::runs(s);
  BOOST_TEST_REQUIRE(all.size() == 1u);
  BOOST_TEST((all[0].executions == row.executions));
}

BOOST_AUTO_TEST_CASE(a_served_clients_recorder_that_comes_back_goes_on_with_its_execution) {
  soma_test::scratch dir;
  soma::store s{dir / "s"};
  {
    auto session = log_of(s, "r", false, 77, "laptop-4242");
    write(session, 2);
  }
  {
    auto again = log_of(s, "r", false, 77, "laptop-4242"); // a new session, the same recorder
    write(again, 2);
  }
  auto row = soma::run_summary(s, "r");
  BOOST_TEST_REQUIRE(row.executions.size() == 1u);
  BOOST_TEST(row.executions[0].host == "laptop"); // the client's, not the server's
  BOOST_TEST(row.executions[0].pid == 4242u);
  BOOST_TEST(row.executions[0].recorder == 77u);
  auto other = log_of(s, "r", false, 78, "desk-7");
  write(other, 1);
  row = soma::run_summary(s, "r");
  BOOST_TEST_REQUIRE(row.executions.size() == 2u);
  BOOST_TEST(row.executions[1].forward == 4u);
  BOOST_TEST(row.executions[1].host == "desk");
}

BOOST_AUTO_TEST_CASE(an_overwrite_starts_the_executions_again) {
  soma_test::scratch dir;
  soma::store s{dir / "s"};
  {
    auto a = log_of(s, "r");
    write(a, 3);
  }
  {
    auto b = log_of(s, "r");
    write(b, 3);
  }
  BOOST_TEST(soma::run_summary(s, "r").execution_count() == 2u);
  auto c = log_of(s, "r", true);
  write(c, 2);
  auto row = soma::run_summary(s, "r");
  BOOST_TEST(row.forwards == 2u);
  BOOST_TEST_REQUIRE(row.executions.size() == 1u);
  BOOST_TEST(row.executions[0].forward == 0u);
}

BOOST_AUTO_TEST_CASE(a_run_an_older_soma_wrote_is_one_execution_of_unknown_origin) {
  soma_test::scratch dir;
  soma::store s{dir / "s"};
  {
    auto a = log_of(s, "r");
    write(a, 3);
  }
  // The metadata as a soma before executions left it: none listed.
  auto env = s.backend().local();
  env->write([&](MDB_txn* txn, const std::function<MDB_dbi(db)>& dbi) {
    auto key = soma::detail::meta_key("r");
    std::string_view was;
    BOOST_TEST_REQUIRE(env->get(txn, dbi(db::meta), key, was));
    auto m = soma::detail::decode_run_meta(key, was, {"meta"});
    m.executions.clear();
    env->put(txn, dbi(db::meta), key, soma::detail::encode_run_meta(m, key));
  });
  auto row = soma::run_summary(s, "r");
  BOOST_TEST(row.executions.empty());
  BOOST_TEST(row.execution_count() == 1u);
  auto b = log_of(s, "r");
  write(b, 1);
  row = soma::run_summary(s, "r");
  BOOST_TEST_REQUIRE(row.executions.size() == 2u);
  BOOST_TEST(row.executions[0].forward == 0u);
  BOOST_TEST(row.executions[0].host.empty()); // by whom: not known
  BOOST_TEST(row.executions[0].pid == 0u);
  BOOST_TEST(row.executions[1].forward == 3u);
  BOOST_TEST(row.executions[1].host == "h");
}

BOOST_AUTO_TEST_SUITE_END()
