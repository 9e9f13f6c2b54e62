#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <fstream>

#include <csignal>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "scratch.hpp"
#include "soma/store/detail/environment.hpp"
#include "soma/store/detail/guard.hpp"
#include "soma/store/keys.hpp"
#include "soma/store/readers.hpp"
#include "soma/store/detail/record.hpp"
#include "soma/store/store.hpp"

using namespace soma_test;

namespace {

// Writes `n` forwards of run `run` the way a recorder does, without actors.
void write_forwards(soma::store& s, const std::string& run, std::uint64_t n, size_t blob_bytes = 64) {
  s.env().write([&](MDB_txn* txn, auto& dbi) {
    for (std::uint64_t i = 0; i < n; ++i) {
      soma::record r;
      r.forward = i;
      r.state = soma::outcome::ok;
      r.nodes = 1;
      r.took_us = 10;
      r.when_us = (1000 + static_cast<std::int64_t>(i)) * 1'000'000;
      auto key = soma::detail::record_key(run, i);
      s.env().put(txn, dbi(soma::detail::db::records), key, soma::detail::encode_record(r, key));
      std::vector<soma::fact> facts{{"ran", {{"node", "a"}, {"took_us", 10}, {"pad", std::string(blob_bytes, 'p')}}},
                                    {"finished", {{"took_us", 10}}}};
      s.env().put(txn, dbi(soma::detail::db::facts), key, soma::detail::encode_facts(facts, key));
    }
  });
}

} // namespace

BOOST_AUTO_TEST_SUITE(store)

BOOST_AUTO_TEST_CASE(read_only_never_creates_a_store) {
  scratch tmp;
  auto missing = tmp / "nothing-here";
  try {
    soma::store s{missing, {.read_only = true}};
    BOOST_FAIL("a missing store opened");
  } catch (const soma::store_error& e) {
    BOOST_TEST(std::string{e.what()}.starts_with("no store at '" + missing + "'"));
  }
  BOOST_TEST(!std::filesystem::exists(missing));
  auto opened = soma::store::open(missing, {.read_only = true});
  BOOST_TEST(!opened);
}

BOOST_AUTO_TEST_CASE(a_new_store_is_empty_and_read_only_handles_see_it) {
  scratch tmp;
  soma::store s{tmp / "s"};
  BOOST_TEST(s.bound().empty());
  BOOST_TEST(soma::runs(s).empty());
  BOOST_TEST(std::filesystem::exists(tmp / "s/data.mdb"));
  write_forwards(s, "r", 3);
  std::vector<std::string> expected{"run/r/0", "run/r/1", "run/r/2"};
  BOOST_TEST(s.bound() == expected, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(bound_lists_runs_and_forwards_in_numeric_order) {
  scratch tmp;
  soma::store s{tmp / "s"};
  write_forwards(s, "b", 12);
  write_forwards(s, "a", 2);
  auto keys = s.bound();
  BOOST_REQUIRE_EQUAL(keys.size(), 14u);
  BOOST_TEST(keys[0] == "run/a/0");
  BOOST_TEST(keys[2] == "run/b/0");
  BOOST_TEST(keys[11] == "run/b/9");
  BOOST_TEST(keys[12] == "run/b/10");
  auto rs = soma::runs(s);
  BOOST_REQUIRE_EQUAL(rs.size(), 2u);
  BOOST_TEST(rs[1].run == "b");
  BOOST_TEST(rs[1].forwards == 12u);
  BOOST_TEST(rs[1].took_us == 120);
  BOOST_TEST(rs[1].first == 1000);
  BOOST_TEST(rs[1].last == 1011);
}

BOOST_AUTO_TEST_CASE(the_map_grows_by_itself) {
  scratch tmp;
  soma::store s{tmp / "s", {.map_size = 64 * 1024}};
  // About 4 MiB of blobs into a 64 KiB map.
  for (int batch = 0; batch < 4; ++batch)
    write_forwards(s, "run" + std::to_string(batch), 1000, 1000);
  auto rs = soma::runs(s);
  BOOST_REQUIRE_EQUAL(rs.size(), 4u);
  for (auto& r : rs)
    BOOST_TEST(r.forwards == 1000u);
  BOOST_TEST(soma::facts(s, "run3", 999).size() == 2u);
}

BOOST_AUTO_TEST_CASE(a_corrupted_blob_is_a_clear_error_and_costs_nothing_else) {
  scratch tmp;
  soma::store s{tmp / "s"};
  write_forwards(s, "r", 5);
  s.env().write([&](MDB_txn* txn, auto& dbi) {
    s.env().put(txn, dbi(soma::detail::db::facts), soma::detail::record_key("r", 3),
                std::string(48, '\x5a'));
  });
  try {
    (void) soma::facts(s, "r", 3);
    BOOST_FAIL("a corrupted blob decoded");
  } catch (const soma::store_error& e) {
    BOOST_TEST(std::string{e.what()}.starts_with("the fact blob of forward 3 of run 'r' in the store '"
                                                 + s.path() + "' is damaged"),
               e.what());
  }
  BOOST_TEST(soma::facts(s, "r", 2).size() == 2u);
  BOOST_TEST(soma::forwards(s, "r").size() == 5u);
  BOOST_CHECK_THROW((void) soma::nodes(s, "r"), soma::store_error);
  BOOST_TEST(soma::nodes(s, "r", 1).at(0).ran == 1u); // only forward 4
}

BOOST_AUTO_TEST_CASE(a_directory_that_is_not_a_store_is_refused_clearly) {
  scratch tmp;
  std::filesystem::create_directories(tmp / "junk");
  std::ofstream{tmp / "junk/data.mdb"} << std::string(10000, 'j');
  try {
    soma::store s{tmp / "junk"};
    BOOST_FAIL("junk opened as a store");
  } catch (const soma::store_error& e) {
    BOOST_TEST(std::string{e.what()}.find("not a soma store") != std::string::npos);
  }
}

BOOST_AUTO_TEST_CASE(readers_name_what_is_missing) {
  scratch tmp;
  soma::store s{tmp / "s"};
  write_forwards(s, "r", 3);
  auto says = [](auto f, std::string_view text) {
    try {
      f();
      return false;
    } catch (const soma::store_error& e) {
      return std::string{e.what()}.find(text) != std::string::npos;
    }
  };
  BOOST_TEST(says([&] { (void) soma::forwards(s, "nope"); }, "no run 'nope' in the store"));
  BOOST_TEST(says([&] { (void) soma::facts(s, "r", 7); }, "run 'r' has no forward 7 (it has forwards 0 to 2)"));
  BOOST_TEST(says([&] { (void) soma::nodes(s, "nope"); }, "no run 'nope'"));
  BOOST_TEST(says([&] { (void) soma::curve(s, "nope"); }, "no run 'nope'"));
  BOOST_TEST(says([&] { (void) soma::forwards(s, "a/b"); }, "contains '/'"));
}

BOOST_AUTO_TEST_CASE(a_fault_inside_a_guarded_read_is_an_answer_and_outside_still_kills) {
  // A page past the end of a mapped file: SIGBUS when touched, as damaged
  // LMDB pages make mdb_cursor_get do.
  scratch tmp;
  std::string file = tmp / "short";
  { std::ofstream out{file}; out << "x"; }
  int fd = ::open(file.c_str(), O_RDONLY);
  auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  auto* map = static_cast<const volatile char*>(::mmap(nullptr, 2 * page, PROT_READ, MAP_SHARED, fd, 0));
  ::close(fd);
  BOOST_TEST_REQUIRE(map != MAP_FAILED);
  soma::detail::fault_guard guard; // after the test framework's own handler
  char seen = 0;
  auto first = [&] { seen = map[0]; };
  auto past = [&] { seen = map[page]; };
  BOOST_TEST(soma::detail::guarded(first));
  BOOST_TEST(seen == 'x');
  for (int i = 0; i < 3; ++i) // again and again: the signal is not left blocked
    BOOST_TEST(!soma::detail::guarded(past));
  // Outside guarded(), the same fault still ends the process.
  pid_t child = ::fork();
  if (child == 0) {
    // Only soma's handler, over the default: the fault must kill.
    std::signal(SIGBUS, SIG_DFL);
    soma::detail::fault_guard only_soma;
    (void) soma::detail::guarded(first);
    seen = map[page];
    ::_exit(0);
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  BOOST_TEST(WIFSIGNALED(status));
  BOOST_TEST(WTERMSIG(status) == SIGBUS);
  ::munmap(const_cast<char*>(map), 2 * page);
}

BOOST_AUTO_TEST_SUITE_END()
