// The fleet: three real workers writing readings through one served store,
// one never used; a cheap run and a costly run; a stopped worker growing quiet.

#include <boost/test/unit_test.hpp>

#include <signal.h>

#include <algorithm>
#include <limits>
#include <chrono>
#include <thread>

#include "../store/scratch.hpp"
#include "remote_fixture.hpp"
#include "soma/recorder.hpp"
#include "soma/store/fleet.hpp"
#include "soma/store/readings.hpp"
#include "soma/store/standing.hpp"

using namespace soma_test;
using namespace std::chrono_literals;
using namespace std::string_literals;

namespace {

/// The machine id a worker calls itself: hostname-pid.
std::string id_of(const soma::worker& w, const soma::store& s) {
  auto suffix = "-" + std::to_string(w.pid());
  for (auto& [id, r] : soma::standing(s))
    if (id.size() > suffix.size() && id.ends_with(suffix))
      return id;
  return "";
}

const soma::fleet_row* row(const std::vector<soma::fleet_row>& rows, const std::string& host) {
  for (auto& r : rows)
    if (r.host == host)
      return &r;
  return nullptr;
}


} // namespace

BOOST_FIXTURE_TEST_SUITE(fleet, system_fixture)

BOOST_AUTO_TEST_CASE(three_workers_one_unused_a_cheap_run_a_costly_run_and_a_quiet_one) {
  scratch dir;
  auto kept = dir / "kept";
  // The workers report through a served store, as a fleet does: one stopped
  // mid-commit of a shared local directory would hold LMDB's write lock,
  // and the others' readings with it (docs/health.md).
  node_process server{{node_program, "--serve-store", kept}};
  auto address = "soma://127.0.0.1:" + std::to_string(server.port);
  soma::store store{kept};
  auto stood_up = [&] { return serving(sys, {"--store", address, "--reporting", "0.2"}); };
  auto busy = stood_up(), later = stood_up(), spare = stood_up();

  // Before any work: all three stand, each having served nothing.
  BOOST_REQUIRE(eventually([&] { return soma::standing(store).size() == 3; }));
  for (auto* w : {&busy, &later, &spare}) {
    auto id = id_of(*w, store);
    BOOST_REQUIRE_MESSAGE(!id.empty(), "no reading from worker " << w->pid());
    auto r = soma::standing(store).at(id);
    BOOST_TEST(r.served == 0u);
    BOOST_TEST(r.cores >= 1u);
    BOOST_TEST((r.memory > 0.0 && r.memory < 1.0));
    BOOST_TEST((r.busy >= 0.0 && r.busy <= 1.0));
    // It says where it listens and what it serves: the address a client
    // connects to, and the types of the test node library.
    BOOST_TEST(r.listens == w->address());
    BOOST_TEST(!r.serves.empty());
    BOOST_TEST((std::find(r.serves.begin(), r.serves.end(), "Inc") != r.serves.end()));
    BOOST_TEST(r.serves_store.empty());
  }

  // A cheap node sent away: the wire dominates.
  {
    auto cheap = soma::graph::somatize(sys, Inc{}.named("a") >> Inc{}.named("b").at("w1"));
    auto b = soma::broker::embedded({{"w1", busy}});
    soma::recorder watching{sys, store, {.run = "cheap"}};
    for (int i = 0; i < 4; ++i)
      BOOST_TEST(cheap.forward(0, {.watching = watching, .broker = b}) == 2);
    watching.flush();
  }
  auto rows = soma::fleet(store, "cheap");
  BOOST_REQUIRE(row(rows, "here"));
  BOOST_REQUIRE(row(rows, "w1"));
  auto* w1 = row(rows, "w1");
  BOOST_TEST(w1->machine == id_of(busy, store));
  BOOST_TEST(w1->slices == 4u);
  BOOST_TEST(w1->waiting_us > w1->took_us);
  BOOST_TEST(row(rows, "here")->slices == 0u);
  BOOST_TEST(!row(rows, "here")->busy.has_value());
  // The two machines this run never used are there under their own ids.
  BOOST_TEST(row(rows, id_of(later, store)) != nullptr);
  BOOST_TEST(row(rows, id_of(spare, store)) != nullptr);
  BOOST_TEST(row(rows, id_of(spare, store))->slices == 0u);
  BOOST_TEST(rows.size() == 4u);
  // The served count reaches the store on the worker's next reading.
  BOOST_REQUIRE(eventually([&] { return soma::standing(store).at(id_of(busy, store)).served == 4u; }));

  // A slice that earns its trip: the bars flip.
  {
    auto costly = soma::graph::somatize(sys, Inc{}.named("a") >> Sleepy{}.named("b").at("w2"));
    auto b = soma::broker::embedded({{"w2", later}});
    soma::recorder watching{sys, store, {.run = "costly"}};
    for (int i = 0; i < 4; ++i)
      BOOST_TEST(costly.forward(49, {.watching = watching, .broker = b}) == 50);
    watching.flush();
  }
  rows = soma::fleet(store, "costly");
  auto* w2 = row(rows, "w2");
  BOOST_REQUIRE(w2);
  BOOST_TEST(w2->machine == id_of(later, store));
  BOOST_TEST(w2->took_us >= 4 * 50'000);
  BOOST_TEST(w2->took_us > w2->waiting_us);
  BOOST_TEST(row(rows, id_of(busy, store)) != nullptr); // served nothing in this run

  // A stopped worker falls behind the others, who keep writing.
  auto spare_id = id_of(spare, store);
  BOOST_REQUIRE(kill(spare.pid(), SIGSTOP) == 0);
  BOOST_TEST(eventually([&] { return *row(soma::fleet(store, "costly"), spare_id)->quiet_s > 0.8; }));
  rows = soma::fleet(store, "costly");
  BOOST_TEST(*row(rows, "w2")->quiet_s < 0.6);
  BOOST_REQUIRE(kill(spare.pid(), SIGCONT) == 0);
  BOOST_TEST(eventually([&] {
    return *row(soma::fleet(store, "costly"), spare_id)->quiet_s < 0.6;
  }));
}

BOOST_AUTO_TEST_CASE(a_machine_is_quiet_past_three_of_its_intervals) {
  // Judged writer against writer while any writes, with the interval each
  // reading says (none said: 0.5 s).
  std::int64_t t0 = 1'000'000'000'000;
  auto at = [&](std::string id, double behind_s, std::int64_t every_us) {
    soma::reading r{std::move(id), 0.5, 0.5, 2, 10, 0,
                    t0 - static_cast<std::int64_t>(behind_s * 1e6)};
    r.every_us = every_us;
    return std::pair{r.id, r};
  };
  std::map<std::string, soma::reading> latest{
    at("newest", 0, 0),         at("unsaid-1.4", 1.4, 0),  at("unsaid-1.6", 1.6, 0),
    at("every-2s-5.9", 5.9, 2'000'000), at("every-2s-6.1", 6.1, 2'000'000)};
  auto state = [&](const soma::quietness& q, const std::string& id) {
    return std::string{soma::to_string(*q.state_of(latest, id))};
  };
  soma::quietness writers{latest};
  BOOST_TEST(state(writers, "newest") == "reporting");
  BOOST_TEST(state(writers, "unsaid-1.4") == "reporting");
  BOOST_TEST(state(writers, "unsaid-1.6") == "quiet");
  BOOST_TEST(state(writers, "every-2s-5.9") == "reporting");
  BOOST_TEST(state(writers, "every-2s-6.1") == "quiet");
  BOOST_TEST(!writers.state_of(latest, "nobody"));
  // The reader's clock 2.4 s past the newest reading: within the 0.5 s
  // machines' 1.5 s and the 1 s a reader's clock may run ahead, so a fleet
  // that still reports is not taken for silent.
  soma::quietness soon{latest, t0 + 2'400'000};
  BOOST_TEST(state(soon, "newest") == "reporting");
  BOOST_TEST(state(soon, "unsaid-1.4") == "reporting");
  // 2.6 s past: every 0.5 s machine is quiet, the newest too; a 2 s machine
  // (allowed 6 s and 1 s) still reports.
  soma::quietness later{latest, t0 + 2'600'000};
  BOOST_TEST(state(later, "newest") == "quiet");
  BOOST_TEST(state(later, "unsaid-1.4") == "quiet");
  BOOST_TEST(state(later, "every-2s-5.9") == "reporting");
  // A writer's bogus interval (years) counts as a day, and overflows nothing.
  auto bogus = at("bogus", 2 * 86'400.0, std::numeric_limits<std::int64_t>::max());
  latest.insert(bogus);
  soma::quietness with_bogus{latest, t0};
  BOOST_TEST(state(with_bogus, "bogus") == "reporting"); // 2 days behind, 3 days allowed
  latest.erase("bogus");
  // A reader whose clock is behind the writers' sees nothing silent.
  soma::quietness behind{latest, t0 - 60'000'000};
  BOOST_TEST(state(behind, "newest") == "reporting");
  BOOST_TEST(state(behind, "unsaid-1.6") == "quiet"); // still behind the others
  // quiet_s stays writer against writer, whatever the reader's clock.
  BOOST_TEST(later.of(latest.at("unsaid-1.6")) == writers.of(latest.at("unsaid-1.6")));
}

BOOST_AUTO_TEST_CASE(a_fleet_where_every_writer_stopped_is_quiet_by_the_readers_clock) {
  scratch dir;
  soma::store store{dir / "kept"};
  // Two machines that last wrote long ago, 3 s apart.
  soma::put_reading(store, {"old-1", 0.5, 0.5, 2, 10, 0, 1'000'000'000'000});
  soma::put_reading(store, {"old-2", 0.5, 0.5, 2, 10, 0, 1'000'003'000'000});
  auto s = soma::standing(store);
  BOOST_TEST(s.size() == 2u);
  {
    auto g = soma::graph::somatize(sys, Inc{}.named("a"));
    soma::recorder watching{sys, store, {.run = "alone"}};
    (void)g.forward(1, {.watching = watching});
    watching.flush();
  }
  auto rows = soma::fleet(store, "alone");
  // Writer against writer: old-1 is 3 s behind old-2, whatever the reader's clock says.
  BOOST_TEST(*row(rows, "old-1")->quiet_s == 3.0);
  BOOST_TEST(*row(rows, "old-2")->quiet_s == 0.0);
  // Their state is an opinion that takes the reader's clock when every
  // writer is silent: both stopped long ago, so both are quiet.
  BOOST_TEST(soma::to_string(*row(rows, "old-1")->state) == "quiet"s);
  BOOST_TEST(soma::to_string(*row(rows, "old-2")->state) == "quiet"s);
  // As of old-2's last reading, only old-1 (3 s behind, 1.5 s allowed) was.
  rows = soma::fleet(store, "alone", {.now_us = 1'000'003'000'000});
  BOOST_TEST(soma::to_string(*row(rows, "old-1")->state) == "quiet"s);
  BOOST_TEST(soma::to_string(*row(rows, "old-2")->state) == "reporting"s);
  BOOST_TEST(!row(rows, "here")->state); // no readings: no opinion
}

BOOST_AUTO_TEST_SUITE_END()
