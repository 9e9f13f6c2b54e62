// Group commit (soma/store/detail/write_group.hpp): the readings and the
// record batches of several writers in one transaction; a part at fault
// fails alone; a group that cannot be written keeps every batch to write.

#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "scratch.hpp"
#include "soma/store/backend.hpp"
#include "soma/store/detail/readings_at.hpp"
#include "soma/store/detail/write_group.hpp"
#include "soma/store/readers.hpp"
#include "soma/store/readings.hpp"
#include "soma/store/standing.hpp"
#include "soma/store/store.hpp"

using namespace soma_test;

namespace {

std::vector<soma::detail::held_forward> forwards_of(std::uint64_t count, double loss) {
  std::vector<soma::detail::held_forward> out;
  for (std::uint64_t f = 1; f <= count; ++f)
    out.push_back({f, std::nullopt,
                   {soma::fact{"loss", {{"value", loss}}}, soma::fact{"finished", {{"took_us", 3}}}},
                   soma::outcome::ok, 3, 1'700'000'000'000'000});
  return out;
}

// A writer's run on `s`, and what its part heard.
struct writer {
  std::unique_ptr<soma::detail::record_sink> sink;
  std::vector<soma::detail::held_forward> unwritten;
  std::vector<std::uint64_t> asked;
  std::optional<soma::detail::record_numbers> heard;

  writer(soma::store& s, const std::string& run, std::uint64_t count)
    : sink(s.backend().records({.run = run, .summarising = {"loss"}}, 0)),
      unwritten(forwards_of(count, 1.5)) {}

  std::unique_ptr<soma::detail::group_part> part(bool closing) {
    return sink->part(unwritten, asked, closing,
                      [this](soma::detail::record_numbers n) { heard = std::move(n); });
  }
};

// A part that writes nothing and fails: the fault of one writer.
struct faulty final : soma::detail::group_part {
  std::string heard;
  void stage(MDB_txn*, const std::function<MDB_dbi(soma::detail::db)>&) override {
    throw soma::store_error("this part cannot be written", soma::store_trouble::invalid);
  }
  void committed() override { heard = "committed"; }
  void failed(const soma::store_error& why) override { heard = why.what(); }
};

std::vector<soma::detail::group_part*> each(
  const std::vector<std::unique_ptr<soma::detail::group_part>>& parts) {
  std::vector<soma::detail::group_part*> out;
  for (auto& p : parts)
    out.push_back(p.get());
  return out;
}

} // namespace

BOOST_AUTO_TEST_SUITE(write_group)

BOOST_AUTO_TEST_CASE(readings_and_two_runs_are_written_in_one_transaction) {
  scratch dir;
  soma::store s{dir.dir};
  auto env = s.backend().local();
  writer a{s, "a", 3}, b{s, "b", 4};
  std::vector<soma::reading> readings{soma::reading{"m1", 0.5, 0.5, 2, 1000, 1, 1'700'000'000'000'000}};
  std::vector<bool> trim;
  std::string readings_heard;
  std::vector<std::unique_ptr<soma::detail::group_part>> parts;
  parts.push_back(soma::detail::readings_part(*env, readings, trim, [&](const soma::store_error* e) {
    readings_heard = e ? e->what() : "committed";
  }));
  parts.push_back(a.part(true));
  parts.push_back(b.part(false));
  auto before = s.backend().ask().version();
  BOOST_TEST(soma::detail::write_group(*env, each(parts)) == 1u);
  BOOST_TEST(s.backend().ask().version() - before == 1u);
  BOOST_TEST(readings_heard == "committed");
  BOOST_REQUIRE(a.heard);
  BOOST_REQUIRE(b.heard);
  BOOST_TEST(!a.heard->error);
  BOOST_TEST(a.heard->numbered.size() == 3u);
  BOOST_TEST(b.heard->numbered.size() == 4u);
  BOOST_TEST(b.heard->numbered.back().second == 3u);
  BOOST_TEST(a.unwritten.empty());
  BOOST_TEST(b.unwritten.empty());
  // The forwards written come back with the numbers, facts and all, for
  // the recorder to free or reuse on its own thread.
  BOOST_REQUIRE_EQUAL(b.heard->written.size(), 4u);
  BOOST_TEST(b.heard->written.back().id == 4u);
  BOOST_TEST(b.heard->written.back().facts.size() == 2u);
  BOOST_TEST(soma::forwards(s, "a").size() == 3u);
  BOOST_TEST(soma::forwards(s, "b").size() == 4u);
  // a closed with its batch, in the same transaction; b did not.
  BOOST_TEST(soma::run_summary(s, "a").ended_us.has_value());
  BOOST_TEST(!soma::run_summary(s, "b").ended_us.has_value());
  BOOST_TEST(soma::standing(s).count("m1") == 1u);
  // The next batch of b numbers after what the group wrote.
  b.unwritten = forwards_of(2, 0.5);
  for (auto& f : b.unwritten)
    f.id += 10;
  auto next = b.sink->write(b.unwritten, {}, false);
  BOOST_TEST(!next.error);
  BOOST_REQUIRE_EQUAL(next.numbered.size(), 2u);
  BOOST_TEST(next.numbered.front().second == 4u);
  BOOST_REQUIRE_EQUAL(next.written.size(), 2u);
  BOOST_TEST(next.written.front().id == 11u);
  BOOST_TEST(b.unwritten.empty());
}

BOOST_AUTO_TEST_CASE(a_write_in_several_transactions_hands_back_every_forward_in_order) {
  scratch dir;
  soma::store s{dir.dir};
  auto sink = s.backend().records({.run = "r", .batch = 2}, 0);
  auto unwritten = forwards_of(5, 1.5);
  auto out = sink->write(unwritten, {}, false);
  BOOST_TEST(!out.error);
  BOOST_TEST(unwritten.empty());
  BOOST_REQUIRE_EQUAL(out.written.size(), 5u);
  for (std::uint64_t i = 0; i < 5; ++i) {
    BOOST_TEST(out.written[i].id == i + 1);
    BOOST_TEST(out.written[i].facts.front().name == "loss");
  }
  BOOST_TEST(soma::forwards(s, "r").size() == 5u);
}

BOOST_AUTO_TEST_CASE(a_part_at_fault_fails_alone_and_the_others_are_written) {
  scratch dir;
  soma::store s{dir.dir};
  auto env = s.backend().local();
  writer a{s, "a", 2}, b{s, "b", 2};
  auto bad = std::make_unique<faulty>();
  auto* bad_part = bad.get();
  std::vector<std::unique_ptr<soma::detail::group_part>> parts;
  parts.push_back(a.part(false));
  parts.push_back(std::move(bad));
  parts.push_back(b.part(false));
  auto before = s.backend().ask().version();
  // The group failed; each part was then written alone.
  BOOST_TEST(soma::detail::write_group(*env, each(parts)) == 2u);
  BOOST_TEST(s.backend().ask().version() - before == 2u);
  BOOST_TEST(bad_part->heard == "this part cannot be written");
  BOOST_REQUIRE(a.heard);
  BOOST_REQUIRE(b.heard);
  BOOST_TEST(!a.heard->error);
  BOOST_TEST(!b.heard->error);
  // Written once each, numbered from 0: the failed group left nothing.
  BOOST_TEST(soma::forwards(s, "a").size() == 2u);
  BOOST_TEST(soma::forwards(s, "b").size() == 2u);
  BOOST_TEST(a.heard->numbered.front().second == 0u);
}

BOOST_AUTO_TEST_CASE(a_group_that_cannot_be_written_keeps_every_batch_and_says_why) {
  scratch dir;
  { soma::store made{dir.dir}; } // the store exists; opened read-only below
  soma::store s{dir.dir, {.read_only = true}};
  auto env = s.backend().local();
  writer a{s, "a", 2}, b{s, "b", 3};
  std::vector<std::unique_ptr<soma::detail::group_part>> parts;
  parts.push_back(a.part(false));
  parts.push_back(b.part(true));
  BOOST_TEST(soma::detail::write_group(*env, each(parts)) == 0u);
  BOOST_REQUIRE(a.heard);
  BOOST_REQUIRE(b.heard);
  BOOST_TEST(a.heard->numbered.empty());
  BOOST_TEST(a.heard->written.empty());
  BOOST_REQUIRE(a.heard->error);
  auto why = soma::describe(a.heard->error);
  BOOST_TEST(why.find("read-only") != std::string::npos, why);
  // What could not be written stays, to be written with the next batch.
  BOOST_TEST(a.unwritten.size() == 2u);
  BOOST_TEST(b.unwritten.size() == 3u);
}

BOOST_AUTO_TEST_SUITE_END()
