// Runs summed up from the totals their writer keeps (run_meta::totals,
// detail/run_summaries.hpp): after every way the record log writes a run
// (appended batches, a second writer continuing it, an overwrite, a batch
// sent again with once_for, end()), run_rows_at gives what a count of the
// run's records gives, field by field; runs an older soma wrote (no totals,
// or no metadata at all, as the format-1 fixture) read as before; older
// encodings of the metadata decode as before; and damage is reported.

#include <boost/test/unit_test.hpp>

#include <cmath>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "scratch.hpp"
#include "soma/detail/compact.hpp"
#include "soma/store/backend.hpp"
#include "soma/detail/seal.hpp"
#include "soma/store/check.hpp"
#include "soma/store/detail/environment.hpp"
#include "soma/store/detail/numbering.hpp"
#include "soma/store/detail/run_summaries.hpp"
#include "soma/store/keys.hpp"
#include "soma/store/readers.hpp"
#include "soma/store/detail/record.hpp"
#include "soma/store/record_log.hpp"
#include "writing.hpp"

namespace {

using soma::detail::db;
using dbi_fn = std::function<MDB_dbi(db)>;

// A forward to write: its facts, kept alive while the log writes them.
struct pending {
  std::uint64_t id = 0;
  soma::outcome state = soma::outcome::ok;
  std::int64_t took_us = 0;
  std::int64_t when = 0;
  std::vector<soma::fact> facts{{"ran", {{"node", "a"}, {"took_us", 1}}}};
};

// Forwards first .. first + count - 1 (ids too), broke every third, their
// time and when moving with n and `salt`, when falling as n grows for odd
// salts (so first and last are not simply the first and last written).
std::vector<pending> made(std::uint64_t first, std::uint64_t count, std::int64_t salt = 0) {
  std::vector<pending> out;
  for (auto n = first; n < first + count; ++n) {
    auto k = static_cast<std::int64_t>(n);
    out.push_back({n + 1, n % 3 == 2 ? soma::outcome::broke : soma::outcome::ok, 100 + 7 * k + salt,
                   1'900'000'000 + (salt % 2 ? -k : k) + salt});
    // A loss that falls with n and moves with salt, so that a forward written
    // again can move the run's least, greatest or last loss.
    out.back().facts.push_back({"loss", {{"value", 10.0 / static_cast<double>(k + 1) + static_cast<double>(salt)}}});
  }
  return out;
}

// Writes `xs` through `log` in one transaction, as one batch (ids `batch`).
void write(soma::detail::record_log& log, std::vector<pending>& xs,
           const std::vector<std::uint64_t>& batch = {}) {
  std::vector<soma::detail::log_entry> entries;
  for (auto& x : xs)
    entries.push_back({x.id, std::nullopt,
                       soma::detail::make_record(x.facts, 0, x.state, x.took_us, x.when * 1'000'000,
                                                 {"loss"}),
                       &x.facts});
  (void) log.write(entries, batch);
}

soma::detail::record_log log_of(soma::store& s, const std::string& run, bool overwrite = false,
                                std::uint64_t once_for = 0) {
  return soma::detail::record_log{s.backend().local(), {run, {}, overwrite, once_for}};
}

std::vector<soma::run_row> rows(const soma::store& s,
                                std::optional<std::string_view> after = std::nullopt,
                                std::size_t count = 1000) {
  std::vector<soma::run_row> out;
  auto held = s.backend().local();
  held->read([&](MDB_txn* txn, const dbi_fn& dbi) {
    out = soma::detail::run_rows_at(*held, txn, dbi(db::records), dbi(db::meta), after, count);
  });
  return out;
}

std::optional<soma::run_row> row(const soma::store& s, std::string_view run) {
  std::optional<soma::run_row> out;
  auto held = s.backend().local();
  held->read([&](MDB_txn* txn, const dbi_fn& dbi) {
    out = soma::detail::run_row_at(*held, txn, dbi(db::records), dbi(db::meta), run);
  });
  return out;
}

// What a count of the run's records gives: the reference.
soma::run_row counted(const soma::store& s, const std::string& run) {
  soma::run_row r{run, 0, 0, 0, 0, 0};
  for (auto& rec : soma::forwards(s, run))
    soma::detail::count_forward(r, rec);
  return r;
}

void same_row(const soma::run_row& got, const soma::run_row& want, bool values = true) {
  BOOST_TEST_CONTEXT("run '" << want.run << "'") {
    BOOST_TEST(got.run == want.run);
    BOOST_TEST(got.forwards == want.forwards);
    BOOST_TEST(got.broke == want.broke);
    BOOST_TEST(got.took_us == want.took_us);
    BOOST_TEST(got.first == want.first);
    BOOST_TEST(got.last == want.last);
    // The summarised loss: last, least, greatest, as a count of the records.
    if (values) {
      BOOST_TEST((got.summary_values == want.summary_values));
      BOOST_TEST((got.duration_us == want.duration_us)); // first began to last ended
    }
  }
}

// Every run's row against a count of its records, and the runs listed
// those of runs() (today's scan of every record), in its order.
void all_counted(const soma::store& s, const std::vector<std::string>& names) {
  auto got = rows(s);
  auto scanned = soma::runs(s);
  BOOST_TEST_REQUIRE(got.size() == names.size());
  BOOST_TEST_REQUIRE(scanned.size() == names.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    BOOST_TEST(scanned[i].run == names[i]);
    same_row(got[i], counted(s, names[i]));
    same_row(got[i], scanned[i]);
    auto one = row(s, names[i]);
    BOOST_TEST_REQUIRE(one.has_value());
    same_row(*one, got[i]);
  }
}

soma::detail::run_meta meta(const soma::store& s, const std::string& run) {
  soma::detail::run_meta m;
  auto held = s.backend().local();
  held->read([&](MDB_txn* txn, const dbi_fn& dbi) {
    m = soma::detail::meta_of(*held, txn, dbi(db::meta), run);
  });
  return m;
}

void put_meta(soma::store& s, const std::string& run, const soma::detail::run_meta& m) {
  auto key = soma::detail::meta_key(run);
  s.env().write([&](MDB_txn* txn, auto& dbi) {
    s.env().put(txn, dbi(db::meta), key, soma::detail::encode_run_meta(m, key));
  });
}

bool has_damage(const soma::check_report& r, std::string_view key, std::string_view words) {
  for (auto& d : r.damaged)
    if (d.key == key && d.what.find(words) != std::string::npos)
      return true;
  return false;
}

template <class F>
std::string damaged_error(F&& f) {
  try {
    f();
  } catch (const soma::store_error& e) {
    if (e.trouble() == soma::store_trouble::damaged)
      return e.what();
    return std::string{"not damaged: "} + e.what();
  }
  return "no error";
}

} // namespace

BOOST_AUTO_TEST_SUITE(run_summaries)

BOOST_AUTO_TEST_CASE(the_kept_totals_are_what_the_records_add_up_to_after_every_way_of_writing) {
  soma_test::scratch tmp;
  soma::store s{tmp / "s"};

  // a: three appended batches.
  auto a = log_of(s, "a");
  for (std::uint64_t b = 0; b < 3; ++b) {
    auto xs = made(5 * b, 5, 1);
    write(a, xs);
  }
  // b: two writers, each continuing the other's numbering.
  auto b1 = log_of(s, "b");
  auto b2 = log_of(s, "b");
  auto x1 = made(0, 4), x2 = made(0, 3, 11), x3 = made(0, 2, 20);
  write(b1, x1);
  write(b2, x2);
  write(b1, x3);
  // c: six forwards, then an overwrite: the first write clears it, the
  // next appends.
  auto c = log_of(s, "c");
  auto x4 = made(0, 6, 3);
  write(c, x4);
  auto c2 = log_of(s, "c", true);
  auto x5 = made(0, 2, 40), x6 = made(2, 2, 41);
  write(c2, x5);
  write(c2, x6);
  // d: a served store's client's batches (once_for), one sent again as it
  // was, one sent again changed so that the run's first `when` moves (read
  // again), one sent again by a writer the server made anew.
  auto d = log_of(s, "d", false, 7);
  auto x7 = made(0, 3, 5);
  write(d, x7, {1, 2, 3});
  write(d, x7, {1, 2, 3});
  auto x8 = made(3, 3, 5);
  write(d, x8, {4, 5, 6});
  auto x8b = x8;
  x8b[2].when = 2'000'000'000; // was the run's least when: now its greatest
  x8b[2].state = soma::outcome::ok;
  x8b[1].took_us += 1000;
  write(d, x8b, {4, 5, 6});
  auto d2 = log_of(s, "d", false, 7);
  auto x8c = x8b;
  x8c[0].state = soma::outcome::broke;
  write(d2, x8c, {4, 5, 6});
  // e: an overwrite whose first batch comes again to a writer made anew
  // (a served store's server after a lost answer): cleared again, numbered
  // as before.
  auto e = log_of(s, "e", true, 9);
  auto x9 = made(0, 4, 2);
  write(e, x9, {1, 2, 3, 4});
  auto e2 = log_of(s, "e", true, 9);
  write(e2, x9, {1, 2, 3, 4});
  e2.end();

  all_counted(s, {"a", "b", "c", "d", "e"});
  // What the metadata holds, number by number.
  auto m = meta(s, "b");
  BOOST_TEST_REQUIRE(m.totals.has_value());
  BOOST_TEST(m.totals->forwards == 9u);
  BOOST_TEST(m.next.value_or(0) == 9u);
  auto cm = meta(s, "c");
  BOOST_TEST_REQUIRE(cm.totals.has_value());
  BOOST_TEST(cm.totals->forwards == 4u); // not 6 + 4: the overwrite restarted it
  BOOST_TEST(cm.totals->took_us == (100 + 40) + (107 + 40) + (114 + 41) + (121 + 41));
  auto dm = meta(s, "d");
  BOOST_TEST_REQUIRE(dm.totals.has_value());
  BOOST_TEST(dm.totals->forwards == 6u);
  BOOST_TEST(dm.totals->first == 1'900'000'001); // forward 4's, not 5's as it was
  BOOST_TEST(dm.totals->last == 2'000'000'000);
  auto em = meta(s, "e");
  BOOST_TEST(em.ended_us.has_value()); // end() keeps the totals, and they it
  BOOST_TEST_REQUIRE(em.totals.has_value());
  BOOST_TEST(em.totals->forwards == 4u);
  BOOST_TEST(soma::check(s).damaged.empty());
}

BOOST_AUTO_TEST_CASE(the_totals_of_a_run_are_read_back_number_by_number) {
  soma_test::scratch tmp;
  soma::store s{tmp / "s"};
  auto log = log_of(s, "r");
  std::vector<pending> xs{{1, soma::outcome::ok, 250, 1'900'000'010},
                          {2, soma::outcome::broke, -30, 1'900'000'003},
                          {3, soma::outcome::open, 1000, 1'900'000'020}};
  write(log, xs);
  auto m = meta(s, "r");
  BOOST_TEST_REQUIRE(m.totals.has_value());
  // The span: forward 2 began first; forward 3 ended last (its when and
  // took_us); forward 2's negative took_us ends it where it began.
  BOOST_TEST((*m.totals == soma::detail::run_totals{3, 1, 1220, 1'900'000'003, 1'900'000'020, {}, true,
                                                     1'900'000'003'000'000, 1'900'000'020'001'000}));
  auto got = rows(s);
  BOOST_TEST_REQUIRE(got.size() == 1u);
  same_row(got[0], {"r", 3, 1, 1220, 1'900'000'003, 1'900'000'020}, false);
  BOOST_TEST(!row(s, "q").has_value());
  BOOST_TEST(!row(s, "r0").has_value());
}

BOOST_AUTO_TEST_CASE(listing_runs_reads_no_record_of_a_run_with_totals) {
  // A damaged record is not read by the listing (its cost is the runs, not
  // the forwards); soma::check still finds it, and a run an older soma
  // wrote (no totals) is read whole, damage and all.
  soma_test::scratch tmp;
  soma::store s{tmp / "s"};
  auto log = log_of(s, "r");
  auto xs = made(0, 50);
  write(log, xs);
  s.env().write([&](MDB_txn* txn, auto& dbi) {
    s.env().put(txn, dbi(db::records), soma::detail::record_key("r", 20), std::string(16, 'x'));
  });
  auto got = rows(s);
  BOOST_TEST_REQUIRE(got.size() == 1u);
  BOOST_TEST(got[0].forwards == 50u);
  BOOST_TEST(!soma::check(s).damaged.empty());
  auto m = meta(s, "r");
  m.totals.reset();
  put_meta(s, "r", m);
  BOOST_TEST(damaged_error([&] { (void) rows(s); }).find("forward 20 of run 'r'")
             != std::string::npos);
}

BOOST_AUTO_TEST_CASE(runs_are_listed_in_the_order_of_runs_and_paged_after_a_run) {
  soma_test::scratch tmp;
  soma::store s{tmp / "s"};
  // "a.1" sorts before "a" as runs() lists them ('.' < '/').
  std::vector<std::string> names{"a", "a.1", "b", "c c", "z"};
  for (auto& n : names) {
    auto log = log_of(s, n);
    auto xs = made(0, 2 + n.size());
    write(log, xs);
  }
  // A run whose metadata is there but whose records an overwrite cleared,
  // with nothing written yet: no row, as runs() gives none.
  auto cleared = log_of(s, "b", true);
  std::vector<pending> none;
  write(cleared, none);
  BOOST_TEST(meta(s, "b").next.value_or(99) == 0u);
  auto all = soma::runs(s);
  std::vector<std::string> order;
  for (auto& r : all)
    order.push_back(r.run);
  BOOST_TEST((order == std::vector<std::string>{"a.1", "a", "c c", "z"}));
  all_counted(s, order);
  BOOST_TEST(!row(s, "b").has_value());
  // Paged: after each run, the rest, in that order.
  for (std::size_t i = 0; i < order.size(); ++i) {
    auto rest = rows(s, order[i]);
    BOOST_TEST_REQUIRE(rest.size() == order.size() - i - 1);
    for (std::size_t j = 0; j < rest.size(); ++j)
      BOOST_TEST(rest[j].run == order[i + 1 + j]);
  }
  auto two = rows(s, std::nullopt, 2);
  BOOST_TEST_REQUIRE(two.size() == 2u);
  BOOST_TEST(two[1].run == "a");
  BOOST_TEST(rows(s, "a", 1).at(0).run == "c c");
  BOOST_TEST(rows(s, "b", 10).at(0).run == "c c"); // after a run that is not there
  BOOST_TEST(rows(s, "zz").empty());
  BOOST_TEST(rows(s, std::nullopt, 0).empty());
}

BOOST_AUTO_TEST_CASE(a_run_an_older_soma_wrote_is_counted_from_its_records_and_then_kept) {
  soma_test::scratch tmp;
  soma::store s{tmp / "s"};
  // As an older soma leaves it: records and metadata without totals.
  std::vector<soma_test::written> old;
  for (auto& p : made(0, 5, 3))
    old.push_back({soma::record{0, p.state, 1, p.took_us, p.when * 1'000'000, {}}, p.facts});
  soma_test::write_forwards(s, "old", old);
  BOOST_TEST(!meta(s, "old").totals.has_value());
  all_counted(s, {"old"});
  // The first write of today's soma counts it once; from then on it is kept.
  auto log = log_of(s, "old");
  auto xs = made(5, 3, 4);
  write(log, xs);
  auto m = meta(s, "old");
  BOOST_TEST_REQUIRE(m.totals.has_value());
  BOOST_TEST(m.totals->forwards == 8u);
  all_counted(s, {"old"});
  // end() of a run an older soma wrote last keeps its totals too.
  soma_test::write_forwards(s, "older", old);
  auto ender = log_of(s, "older");
  ender.end();
  BOOST_TEST(meta(s, "older").totals.has_value());
  all_counted(s, {"old", "older"});
  BOOST_TEST(soma::check(s).damaged.empty());
}

BOOST_AUTO_TEST_CASE(the_format_1_fixture_lists_as_it_did_and_takes_totals_when_written) {
  soma_test::scratch tmp;
  std::filesystem::create_directories(tmp / "s");
  std::filesystem::copy_file(SOMA_FIXTURE_V1 "/data.mdb", tmp / "s/data.mdb");
  soma::store s{tmp / "s"};
  // tests/fixtures/store-v1/runs.json; run "remote" has no metadata at all.
  std::vector<soma::run_row> want{{"plain", 3, 1, 183, 1796131251, 1796131251},
                                  {"remote", 4, 0, 0, 1000, 1000},
                                  {"tuesday", 12, 0, 1442, 1796131251, 1796131251}};
  auto got = rows(s);
  BOOST_TEST_REQUIRE(got.size() == want.size());
  for (std::size_t i = 0; i < got.size(); ++i)
    same_row(got[i], want[i], false); // (runs.json predates values)
  // Today's writer continues "tuesday" (format-1 metadata: no next, no
  // totals) and "remote" (no metadata).
  for (std::string run : {"tuesday", "remote"}) {
    auto log = log_of(s, run);
    auto xs = made(0, 2, 9);
    write(log, xs);
    BOOST_TEST(meta(s, run).totals.has_value());
  }
  all_counted(s, {"plain", "remote", "tuesday"});
  BOOST_TEST(rows(s).at(2).forwards == 14u);
  BOOST_TEST(soma::check(s).damaged.empty());
}

BOOST_AUTO_TEST_CASE(older_encodings_of_run_metadata_decode_as_before) {
  auto key = soma::detail::meta_key("m");
  auto decode = [&](const std::string& bytes) {
    return soma::detail::decode_run_meta(key, bytes, {"meta"});
  };
  // Format 2 as written before totals: names, next + 1, ended_us only when set.
  auto old = [&](std::optional<std::int64_t> ended) {
    std::string payload;
    soma::detail::compact::put_varint(payload, 1);
    soma::detail::compact::put_name(payload, "loss");
    soma::detail::compact::put_varint(payload, 12 + 1);
    if (ended)
      soma::detail::compact::put_varint(payload, soma::detail::compact::zigzag(*ended));
    return soma::detail::sealed(key, soma::detail::sealed_kind::run_meta, payload, 2);
  };
  for (std::optional<std::int64_t> ended :
       {std::optional<std::int64_t>{}, std::optional<std::int64_t>{0},
        std::optional<std::int64_t>{1}, std::optional<std::int64_t>{1'796'131'251'000'000},
        std::optional<std::int64_t>{-5}}) {
    auto m = decode(old(ended));
    BOOST_TEST((m.summarising == std::vector<std::string>{"loss"}));
    BOOST_TEST(m.next.value_or(0) == 12u);
    BOOST_TEST((m.ended_us == ended));
    BOOST_TEST(!m.totals.has_value());
    // Today's encoding (format 3) reads back the same.
    auto again = decode(soma::detail::encode_run_meta(m, key));
    BOOST_TEST((again.summarising == m.summarising && again.next == m.next
                && again.ended_us == m.ended_us && !again.totals));
  }
  // With totals, with and without ended_us (0 and 1 would read as the
  // older form's ended_us if the form were not told apart).
  for (std::optional<std::int64_t> ended :
       {std::optional<std::int64_t>{}, std::optional<std::int64_t>{0},
        std::optional<std::int64_t>{1}, std::optional<std::int64_t>{-1'796'131'251'000'000}}) {
    for (auto t : {soma::detail::run_totals{}, soma::detail::run_totals{1, 1, -3, 7, 7},
                   soma::detail::run_totals{1'000'000, 17, 1LL << 40, 1'796'131'251,
                                            1'796'131'999},
                   soma::detail::run_totals{3, 0, 10, 5, 6,
                                            {{"loss.value", 0.5, 2, -0.25, 1e300}, {"acc", 1, 0, 1, 1}},
                                            true}}) {
      soma::detail::run_meta m{{"loss", "acc"}, 1'000'000, ended, t};
      auto back = decode(soma::detail::encode_run_meta(m, key));
      BOOST_TEST((back.summarising == m.summarising));
      BOOST_TEST(back.next.value_or(0) == 1'000'000u);
      BOOST_TEST((back.ended_us == ended));
      BOOST_TEST_REQUIRE(back.totals.has_value());
      BOOST_TEST((*back.totals == t));
    }
  }
  // The example docs/formats.md gives of format 2, byte for byte.
  const unsigned char example[] = {0x01, 0x2e, 0x0d, 0x00, 0x0c, 0x01, 0xc4, 0x16, 0xe6,
                                   0xa6, 0xf6, 0xb0, 0x0d, 0xe6, 0xa6, 0xf6, 0xb0, 0x0d};
  std::string payload{reinterpret_cast<const char*>(example), sizeof example};
  soma::detail::run_meta tuesday{{"loss"}, 12, std::nullopt,
                                 soma::detail::run_totals{12, 1, 1442, 1796131251, 1796131251}};
  tuesday.totals->values_kept = false; // format 2 kept no summarised numbers
  auto back = decode(soma::detail::sealed(key, soma::detail::sealed_kind::run_meta, payload, 2));
  BOOST_TEST((back.summarising == tuesday.summarising && back.next == tuesday.next));
  BOOST_TEST((back.totals == tuesday.totals));
  BOOST_TEST(!back.ended_us.has_value());
  // Totals that cannot be (more broke than forwards; first after last) are
  // damage, though sealed right.
  for (auto t : {soma::detail::run_totals{1, 2, 0, 0, 0}, soma::detail::run_totals{2, 0, 0, 9, 8}}) {
    soma::detail::run_meta m{{}, t.forwards, std::nullopt, t};
    BOOST_CHECK_THROW((void) decode(soma::detail::encode_run_meta(m, key)), soma::store_error);
  }
}

BOOST_AUTO_TEST_CASE(changed_totals_are_reported_by_check_and_damaged_metadata_by_the_listing) {
  soma_test::scratch tmp;
  soma::store s{tmp / "s"};
  for (std::string run : {"p", "q"}) {
    auto log = log_of(s, run);
    auto xs = made(0, 6);
    write(log, xs);
  }
  BOOST_TEST(soma::check(s).damaged.empty());
  // A took_us that is not what the records add up to, sealed properly:
  // the listing believes it (it reads no record); soma::check does not.
  auto m = meta(s, "p");
  auto right = m.totals->took_us;
  m.totals->took_us += 5;
  put_meta(s, "p", m);
  BOOST_TEST(rows(s).at(0).took_us == right + 5);
  auto report = soma::check(s);
  BOOST_TEST(report.damaged.size() == 1u);
  BOOST_TEST(has_damage(report, "run/p", "the summary of run 'p' says took_us "
                                             + std::to_string(right + 5)
                                             + " where its records add up to "
                                             + std::to_string(right)),
             (report.damaged.empty() ? std::string{} : report.damaged[0].what));
  // A count of forwards that is not the run's next: damaged when listed.
  m.totals->took_us = right;
  m.totals->forwards = 5;
  put_meta(s, "p", m);
  auto why = damaged_error([&] { (void) rows(s); });
  BOOST_TEST(why.find("the store '" + s.path() + "' is damaged: run 'p' has 6 forwards written "
                      "(its metadata says), but its summary counts 5")
               != std::string::npos,
             why);
  BOOST_TEST(damaged_error([&] { (void) row(s, "p"); }) == why);
  BOOST_TEST(has_damage(soma::check(s), "run/p", "forwards 5 where its records add up to 6"));
  // Metadata whose bytes changed: the checksum says so, naming the run.
  m.totals->forwards = 6;
  put_meta(s, "p", m);
  BOOST_TEST(soma::check(s).damaged.empty());
  auto key = soma::detail::meta_key("q");
  s.env().write([&](MDB_txn* txn, auto& dbi) {
    std::string_view bytes;
    BOOST_TEST_REQUIRE(s.env().get(txn, dbi(db::meta), key, bytes));
    std::string flipped{bytes};
    flipped[flipped.size() - 2] ^= 0x10;
    s.env().put(txn, dbi(db::meta), key, flipped);
  });
  why = damaged_error([&] { (void) rows(s); });
  BOOST_TEST(why.find("the metadata of run 'q' in the store '" + s.path() + "' is damaged")
               != std::string::npos,
             why);
  BOOST_TEST(damaged_error([&] { (void) row(s, "q"); }) == why);
  BOOST_TEST(rows(s, std::nullopt, 1).at(0).run == "p"); // what is not damaged still reads
  // The last record gone (its metadata and totals say 6): damaged, not 5.
  s.env().write([&](MDB_txn* txn, auto& dbi) {
    s.env().del(txn, dbi(db::records), soma::detail::record_key("p", 5));
  });
  why = damaged_error([&] { (void) row(s, "p"); });
  BOOST_TEST(why.find("run 'p' has 6 forwards written (its metadata says), but its last record "
                      "is numbered 4")
               != std::string::npos,
             why);
}

BOOST_AUTO_TEST_CASE(a_runs_summarised_numbers_are_its_last_least_and_greatest) {
  soma_test::scratch tmp;
  soma::store s{tmp / "s"};
  auto log = log_of(s, "r", false, 5);
  auto xs = made(0, 4); // losses 10, 5, 3.33, 2.5
  write(log, xs, {1, 2, 3, 4});
  auto r = soma::run_summary(s, "r");
  BOOST_TEST_REQUIRE(r.summary_values.size() == 1u);
  auto v = r.summary_values[0];
  BOOST_TEST(v.key == "loss.value");
  BOOST_TEST(v.last == 2.5);
  BOOST_TEST(v.last_forward == 3u);
  BOOST_TEST(v.min == 2.5);
  BOOST_TEST(v.max == 10.0);
  // Forward 0, the greatest, written again smaller; forward 3, the least
  // and last, written again greater: only a count knows the new bounds.
  auto again = made(0, 4, 100); // losses 110, 105, 103.33, 102.5
  again[0].facts.back() = {"loss", {{"value", 4.0}}};
  again[3].facts.back() = {"loss", {{"value", 6.0}}};
  std::vector<pending> two{again[0], again[3]};
  write(log, two, {1, 4});
  v = soma::run_summary(s, "r").summary_values.at(0);
  BOOST_TEST(v.min == 10.0 / 3.0);
  BOOST_TEST(v.max == 6.0);
  BOOST_TEST(v.last == 6.0);
  same_row(soma::run_summary(s, "r"), counted(s, "r"));
  // Totals a soma before 0.4 kept (no values): counted again at the next write.
  auto m = meta(s, "r");
  m.totals->values.clear();
  m.totals->values_kept = false;
  put_meta(s, "r", m);
  BOOST_TEST(soma::run_summary(s, "r").summary_values.empty()); // until written again
  auto later = log_of(s, "r");
  auto more = made(4, 1); // loss 2
  write(later, more);
  v = soma::run_summary(s, "r").summary_values.at(0);
  BOOST_TEST(v.min == 2.0);
  BOOST_TEST(v.max == 6.0);
  BOOST_TEST(v.last_forward == 4u);
  same_row(soma::run_summary(s, "r"), counted(s, "r"));
  BOOST_TEST(soma::check(s).damaged.empty());
}

BOOST_AUTO_TEST_CASE(a_forward_written_again_at_its_moment_moves_a_bound_only_through_a_count) {
  // The batch sent again (a served client's, as once_for keeps its last),
  // each forward at the same when and took_us as before but one: only the
  // summarised number or the span's end can make the totals be counted again.
  soma_test::scratch tmp;
  soma::store s{tmp / "s"};
  auto log = log_of(s, "r", false, 5);
  auto xs = made(0, 4); // losses 10, 5, 3.33, 2.5; forward 3 began last
  write(log, xs, {1, 2, 3, 4});
  // Forward 0, the greatest loss, now 1: the greatest is forward 1's 5.
  xs[0].facts.back() = {"loss", {{"value", 1.0}}};
  write(log, xs, {1, 2, 3, 4});
  auto v = soma::run_summary(s, "r").summary_values.at(0);
  BOOST_TEST(v.max == 5.0);
  BOOST_TEST(v.min == 1.0);
  same_row(soma::run_summary(s, "r"), counted(s, "r"));
  // Forward 3, which ended last, now shorter: the span ends earlier.
  xs[3].took_us = 50;
  write(log, xs, {1, 2, 3, 4});
  auto row = soma::run_summary(s, "r");
  BOOST_TEST(row.forwards == 4u);
  BOOST_TEST_REQUIRE(row.duration_us.has_value());
  BOOST_TEST(*row.duration_us == 3'000'050); // forward 0 began, forward 3 ends 50 µs after its when
  same_row(row, counted(s, "r"));
  // A NaN told: never a bound, and never in the way of one.
  xs[1].facts.back() = {"loss", {{"value", std::nan("")}}};
  write(log, xs, {1, 2, 3, 4});
  v = soma::run_summary(s, "r").summary_values.at(0);
  BOOST_TEST(v.max == 10.0 / 3.0);
  BOOST_TEST(v.min == 1.0);
  same_row(soma::run_summary(s, "r"), counted(s, "r"));
  BOOST_TEST(soma::check(s).damaged.empty());
}

BOOST_AUTO_TEST_SUITE_END()
