// soma::runs_tally against runs(): the same rows, in the same order, look
// after look while runs grow, appear, are overwritten shorter or with other
// records, and vanish; damage in what it reads is thrown as runs() throws
// it; and what it counted before is not read again.

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "child.hpp"
#include "scratch.hpp"
#include "soma/store/check.hpp"
#include "soma/store/detail/cursor.hpp"
#include "soma/store/detail/environment.hpp"
#include "soma/store/keys.hpp"
#include "soma/store/readers.hpp"
#include "soma/store/detail/record.hpp"
#include "soma/store/check.hpp"
#include "soma/store/runs_tally.hpp"
#include "writing.hpp"

namespace {

// Forward n of a run: broke every seventh, its time and when moving with n
// and `salt` (another salt: other records at the same numbers).
soma_test::written forward(std::uint64_t n, std::int64_t salt = 0) {
  soma::record r;
  r.state = n % 7 == 6 ? soma::outcome::broke : soma::outcome::ok;
  r.nodes = 3;
  r.took_us = 100 + static_cast<std::int64_t>(n) + salt;
  r.when_us = (1'900'000'000 + static_cast<std::int64_t>(n / 3) + salt) * 1'000'000;
  return {r, {{"ran", {{"node", "a"}, {"took_us", 1}}}}};
}

void append(soma::store& s, const std::string& run, std::uint64_t first, std::uint64_t count,
            std::int64_t salt = 0) {
  std::vector<soma_test::written> xs;
  for (auto n = first; n < first + count; ++n)
    xs.push_back(forward(n, salt));
  soma_test::write_forwards(s, run, std::move(xs), first);
}

// Drops every record, blob and the metadata of `run`.
void drop(soma::store& s, const std::string& run) {
  auto prefix = soma::detail::run_prefix(run);
  s.env().write([&](MDB_txn* txn, auto& dbi) {
    for (auto which : {soma::detail::db::records, soma::detail::db::facts}) {
      soma::detail::cursor c{s.env(), txn, dbi(which)};
      while (c.move(MDB_SET_RANGE, prefix) && c.key().starts_with(prefix))
        c.del();
    }
    soma::detail::cursor m{s.env(), txn, dbi(soma::detail::db::meta)};
    if (m.move(MDB_SET, soma::detail::meta_key(run)))
      m.del();
  });
}

// Deletes forward n's record of `run`, or the run's metadata (n: none).
void erase(soma::store& s, const std::string& run, std::optional<std::uint64_t> n) {
  s.env().write([&](MDB_txn* txn, auto& dbi) {
    soma::detail::cursor c{s.env(), txn, dbi(n ? soma::detail::db::records : soma::detail::db::meta)};
    if (c.move(MDB_SET, n ? soma::detail::record_key(run, *n) : soma::detail::meta_key(run)))
      c.del();
  });
}

// Writes `bytes` as forward n's record of `run`, as damage would.
void overwrite_record(soma::store& s, const std::string& run, std::uint64_t n, std::string bytes) {
  s.env().write([&](MDB_txn* txn, auto& dbi) {
    s.env().put(txn, dbi(soma::detail::db::records), soma::detail::record_key(run, n), bytes);
  });
}

std::string record_bytes(const std::string& run, std::uint64_t n) {
  return soma::detail::encode_record(forward(n).r, soma::detail::record_key(run, n));
}

bool same(const std::vector<soma::run_row>& a, const std::vector<soma::run_row>& b) {
  if (a.size() != b.size())
    return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i].run != b[i].run || a[i].forwards != b[i].forwards || a[i].broke != b[i].broke
        || a[i].took_us != b[i].took_us || a[i].first != b[i].first || a[i].last != b[i].last)
      return false;
  return true;
}

std::string shown(const std::vector<soma::run_row>& rows) {
  std::string out;
  for (auto& r : rows)
    out += r.run + ":" + std::to_string(r.forwards) + "/" + std::to_string(r.broke) + "/"
           + std::to_string(r.took_us) + "/" + std::to_string(r.first) + "-"
           + std::to_string(r.last) + " ";
  return out;
}

struct fixture {
  soma_test::scratch dir;
  soma::store s{dir / "store"};
  soma::runs_tally tally{s};

  // The tally answers what runs() answers now.
  void agrees(const char* when) {
    auto t = tally.rows();
    auto r = soma::runs(s);
    BOOST_TEST(same(t, r), when << ": the tally says " << shown(t) << "; runs() " << shown(r));
  }
};

} // namespace

BOOST_AUTO_TEST_SUITE(runs_tally)

BOOST_FIXTURE_TEST_CASE(it_answers_what_runs_answers_look_after_look, fixture) {
  BOOST_TEST(tally.rows().empty());
  // Ids whose keys sort otherwise than their names: "a-b" < "a" < "a0".
  append(s, "a", 0, 50);
  append(s, "a-b", 0, 3);
  append(s, "a0", 0, 1);
  agrees("first look");
  BOOST_TEST(tally.rows()[1].run == "a");
  agrees("the store not moved");
  append(s, "a", 50, 25);
  agrees("a grew");
  append(s, "a-b", 3, 1);
  append(s, "zz", 0, 10);
  append(s, "0", 0, 2);
  agrees("a-b grew, two new runs");
  // Overwritten with other records: shorter, then as long as before.
  drop(s, "a");
  append(s, "a", 0, 20, 1000);
  agrees("a overwritten shorter");
  drop(s, "zz");
  append(s, "zz", 0, 10, 7);
  agrees("zz overwritten as long");
  drop(s, "zz");
  append(s, "zz", 0, 14, 9);
  agrees("zz overwritten longer");
  drop(s, "a0");
  agrees("a0 gone");
  BOOST_TEST(tally.rows().size() == 4u);
  auto rows = tally.rows();
  BOOST_TEST(rows[2].run == "a");
  BOOST_TEST(rows[2].forwards == 20u);
  BOOST_TEST(rows[2].broke == 2u);
}

BOOST_FIXTURE_TEST_CASE(damage_in_what_it_reads_is_thrown_and_the_tally_stays, fixture) {
  append(s, "a", 0, 10);
  agrees("first look");
  append(s, "a", 10, 10);
  auto bad = record_bytes("a", 15);
  bad.back() = static_cast<char>(bad.back() ^ 1);
  overwrite_record(s, "a", 15, bad);
  try {
    (void)tally.rows();
    BOOST_FAIL("a damaged new record was read without a word");
  } catch (const soma::store_error& e) {
    BOOST_TEST((e.trouble() == soma::store_trouble::damaged));
    BOOST_TEST(std::string{e.what()}.find("forward 15 of run 'a'") != std::string::npos, e.what());
  }
  overwrite_record(s, "a", 15, record_bytes("a", 15)); // mended
  agrees("after the mend");
  // A forward lost from the middle of what is new: damage, as runs() says.
  append(s, "a", 20, 10);
  erase(s, "a", 24);
  BOOST_CHECK_EXCEPTION((void)tally.rows(), soma::store_error, [](const soma::store_error& e) {
    return e.trouble() == soma::store_trouble::damaged;
  });
  BOOST_CHECK_THROW((void)soma::runs(s), soma::store_error);
}

// A run whose metadata says no count (format 1, or lost with its entry) has
// no number to miss: runs() counts what is there, and so does the tally,
// first look and later; a run that does not begin at 0 likewise.
BOOST_FIXTURE_TEST_CASE(a_run_with_no_count_to_miss_reads_as_runs_reads_it, fixture) {
  append(s, "g", 0, 10);
  erase(s, "g", 4);
  erase(s, "g", std::nullopt);
  agrees("a gap and no metadata");
  append(s, "g", 10, 5);
  erase(s, "g", std::nullopt);
  erase(s, "g", 12);
  agrees("grown, with another gap");
  append(s, "h", 3, 7); // from forward 3: its metadata says 10 were written
  BOOST_CHECK_EXCEPTION((void)tally.rows(), soma::store_error, [](const soma::store_error& e) {
    return e.trouble() == soma::store_trouble::damaged;
  });
  BOOST_CHECK_THROW((void)soma::runs(s), soma::store_error);
  erase(s, "h", std::nullopt); // and without it, 7 forwards
  agrees("no forward 0, no metadata");
  auto rows = tally.rows();
  BOOST_REQUIRE_EQUAL(rows.size(), 2u);
  BOOST_TEST(rows[0].forwards == 13u);
  BOOST_TEST(rows[1].forwards == 7u);
}

BOOST_FIXTURE_TEST_CASE(a_run_without_totals_is_read_again_and_its_damage_thrown, fixture) {
  // These runs are written as an older soma wrote them: metadata without
  // the run's totals. runs() counts such a run from its records, and the
  // tally is runs() asked again when the store moved: both find damage to a
  // record already counted, and soma::check names it.
  append(s, "a", 0, 100);
  agrees("first look");
  auto bad = record_bytes("a", 40);
  bad.back() = static_cast<char>(bad.back() ^ 1);
  overwrite_record(s, "a", 40, bad);
  append(s, "a", 100, 5);
  BOOST_CHECK_THROW((void)soma::runs(s), soma::store_error);
  BOOST_CHECK_THROW((void)tally.rows(), soma::store_error);
  auto report = soma::check(s);
  BOOST_TEST(std::any_of(report.damaged.begin(), report.damaged.end(),
                         [](const soma::damage& d) { return d.key == "run/a/40"; }));
}

// A writer killed writes nothing: the store stays still, and the tally must
// not keep its run running on the strength of that.
BOOST_FIXTURE_TEST_CASE(a_run_whose_writer_is_killed_comes_to_stand_died_in_a_still_store, fixture) {
  using namespace std::chrono_literals;
  // One forward, flushed, then ten seconds' pause: killed in it.
  soma_test::child c{{SOMA_RECORD_CHILD, dir / "store", "killed", "0", "1", "10000"}};
  BOOST_REQUIRE(c.until("durable 1", 30s));
  auto rows = tally.rows();
  BOOST_REQUIRE_EQUAL(rows.size(), 1u);
  BOOST_TEST(rows[0].status == soma::run_status::running, rows[0].how);
  c.kill(SIGKILL);
  (void)c.wait();
  rows = tally.rows();
  BOOST_REQUIRE_EQUAL(rows.size(), 1u);
  BOOST_TEST(rows[0].status == soma::run_status::died, rows[0].how);
  agrees("its writer killed");
}

BOOST_AUTO_TEST_SUITE_END()
