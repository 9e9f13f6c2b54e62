// The JSON API (soma/web/api.hpp) against the readers it answers from: the
// same rows, paged and filtered as documented, and errors that say what was
// wrong.

#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <sstream>
#include <string>

#include "making.hpp"
#include "scratch.hpp"
#include "soma/store/detail/environment.hpp"
#include "soma/store/keys.hpp"
#include "soma/store/readers.hpp"
#include "soma/store/detail/record.hpp"
#include "soma/store/run_query.hpp"
#include "soma/web/api.hpp"

using namespace soma::web;

namespace {

struct fixture {
  soma_test::scratch dir;
  soma::store s{dir / "store"};
  fixture() { soma_test::make_store(s); }
};

template <class F>
std::pair<int, std::string> error_of(F&& f) {
  try {
    f();
  } catch (const api_error& e) {
    return {e.status(), e.what()};
  }
  return {0, ""};
}

// Four runs as a runs_tally answers them, with params, tags and statuses:
// lr.1 (last at 100 s), lr.3 (300, died), lr.03 (200, running), plain (400).
std::vector<soma::run_row> found_rows() {
  auto row = [](std::string run, std::int64_t last, soma::values params,
                std::vector<std::string> tags, soma::run_status status) {
    soma::run_row r;
    r.run = std::move(run);
    r.forwards = 1;
    r.first = r.last = last;
    r.params = std::move(params);
    r.tags = std::move(tags);
    r.status = status;
    return r;
  };
  using st = soma::run_status;
  return {row("lr.03", 200, {{"lr", 0.03}, {"seed", std::int64_t{3}}}, {"sweep", "short"}, st::running),
          row("lr.1", 100, {{"lr", 0.1}, {"seed", std::int64_t{1}}}, {"baseline"}, st::finished),
          row("lr.3", 300, {{"lr", 0.3}}, {"sweep"}, st::died),
          row("plain", 400, {}, {}, st::finished)};
}

// The runs a page lists, in its order.
std::vector<std::string> listed(const json& page) {
  std::vector<std::string> out;
  for (auto& r : page["runs"])
    out.push_back(r["run"]);
  return out;
}

// The runs soma runs lists for `q`, in its order.
std::vector<std::string> selected(const soma::run_query& q) {
  std::vector<std::string> out;
  for (auto& r : soma::select_runs(found_rows(), q))
    out.push_back(r.run);
  return out;
}

using names = std::vector<std::string>;

} // namespace

BOOST_AUTO_TEST_SUITE(api)

BOOST_FIXTURE_TEST_CASE(runs_are_the_readers_rows_most_recent_first_paged_and_filtered, fixture) {
  auto page = runs_page(s, {});
  BOOST_TEST(page["total"] == 2);
  BOOST_REQUIRE_EQUAL(page["runs"].size(), 2u);
  // sweep-a's last forward (249) is 24 s after sweep-b's (29): it comes first.
  BOOST_TEST(page["runs"][0] == json_of(soma::runs(s)[0]));
  BOOST_TEST(page["runs"][1] == json_of(soma::runs(s)[1]));
  BOOST_TEST(page["runs"][0]["forwards"] == 250);
  BOOST_TEST(page["runs"][0]["broke"] == 25);

  auto one = runs_page(s, {{"limit", "1"}, {"offset", "1"}});
  BOOST_TEST(one["total"] == 2);
  BOOST_REQUIRE_EQUAL(one["runs"].size(), 1u);
  BOOST_TEST(one["runs"][0]["run"] == "sweep-b");

  auto b = runs_page(s, {{"filter", "-b"}});
  BOOST_TEST(b["total"] == 1);
  BOOST_TEST(b["runs"][0]["run"] == "sweep-b");
  BOOST_TEST(runs_page(s, {{"filter", "nothing-like-it"}})["runs"].empty());

  auto [status, why] = error_of([&] { (void)runs_page(s, {{"limit", "0"}}); });
  BOOST_TEST(status == 400);
  BOOST_TEST(why == "'limit' must be a whole number from 1 to 1000, not '0'");
  BOOST_TEST(error_of([&] { (void)runs_page(s, {{"offset", "x"}}); }).first == 400);
}

BOOST_FIXTURE_TEST_CASE(a_run_is_its_row_and_the_series_it_can_draw, fixture) {
  auto page = run_page(s, "sweep-a");
  BOOST_TEST(page["run"] == json_of(soma::runs(s)[0]));
  BOOST_TEST(page["series"] == json::array({"loss.value"}));
  // The last forward told lr (value and a text note): only the number can be a curve.
  BOOST_TEST(page["told"] == json::array({"lr.value"}));
  BOOST_TEST(page["ended_us"].is_null());

  auto [status, why] = error_of([&] { (void)run_page(s, "nope"); });
  BOOST_TEST(status == 404);
  BOOST_TEST(why.find("no run 'nope'") != std::string::npos);
}

BOOST_FIXTURE_TEST_CASE(forwards_come_a_page_at_a_time_from_either_end, fixture) {
  auto all = soma::forwards(s, "sweep-a");
  auto page = forwards_page(s, "sweep-a", {{"offset", "100"}, {"limit", "50"}});
  BOOST_TEST(page["total"] == 250);
  BOOST_TEST(page["offset"] == 100);
  BOOST_REQUIRE_EQUAL(page["forwards"].size(), 50u);
  for (std::size_t i = 0; i < 50; ++i)
    BOOST_TEST(page["forwards"][i] == json_of(all[100 + i]));

  // What a live stream writes for a forward is json_of's object with its total.
  for (auto& r : {all[0], all[9], all[249]}) {
    std::string text;
    append_json(text, r, 250);
    auto expected = json_of(r);
    expected["total"] = 250;
    BOOST_TEST(json::parse(text) == expected, text);
  }

  auto last = forwards_page(s, "sweep-a", {{"offset", "-10"}});
  BOOST_TEST(last["offset"] == 240);
  BOOST_REQUIRE_EQUAL(last["forwards"].size(), 10u);
  BOOST_TEST(last["forwards"][9] == json_of(all[249]));
  BOOST_TEST(forwards_page(s, "sweep-a", {{"offset", "-1000"}})["offset"] == 0);
  BOOST_TEST(forwards_page(s, "sweep-a", {{"offset", "250"}})["forwards"].empty());
  BOOST_TEST(error_of([&] { (void)forwards_page(s, "sweep-a", {{"limit", "1001"}}); }).first == 400);
  BOOST_TEST(error_of([&] { (void)forwards_page(s, "nope", {}); }).first == 404);
}

BOOST_FIXTURE_TEST_CASE(a_forward_is_its_record_and_its_facts_in_order, fixture) {
  auto page = forward_page(s, "sweep-a", 9);
  BOOST_TEST(page["record"]["state"] == "broke");
  auto told = soma::facts(s, "sweep-a", 9);
  BOOST_REQUIRE_EQUAL(page["facts"].size(), told.size());
  for (std::size_t i = 0; i < told.size(); ++i)
    BOOST_TEST(page["facts"][i] == json_of(told[i]));
  BOOST_TEST(page["facts"][4]["note"] == "a \"quoted\" note");

  auto [status, why] = error_of([&] { (void)forward_page(s, "sweep-a", 250); });
  BOOST_TEST(status == 404);
  BOOST_TEST(why == "run 'sweep-a' has no forward 250; it has 250 (0 to 249)");
}

BOOST_FIXTURE_TEST_CASE(a_curve_is_the_readers_ranged_and_thinned_to_real_points, fixture) {
  auto whole = curve_page(s, "sweep-a", {});
  auto read = soma::curve(s, "sweep-a", "loss");
  BOOST_REQUIRE_EQUAL(whole["points"].size(), read.size());
  for (std::size_t i = 0; i < read.size(); ++i)
    BOOST_TEST(whole["points"][i] == json_of(read[i]));

  auto ranged = curve_page(s, "sweep-a", {{"from", "10"}, {"to", "19"}});
  BOOST_REQUIRE_EQUAL(ranged["points"].size(), 10u);
  BOOST_TEST(ranged["points"][0]["forward"] == 10);
  BOOST_TEST(ranged["points"][9]["forward"] == 19);

  auto thin = curve_page(s, "sweep-a", {{"points", "40"}});
  BOOST_TEST(thin["points"].size() <= 40u);
  BOOST_TEST(thin["points"].size() >= 20u);
  BOOST_TEST(thin["points"].front() == json_of(read.front()));
  BOOST_TEST(thin["points"].back() == json_of(read.back()));
  for (auto& p : thin["points"]) // every point kept is one the run told
    BOOST_TEST(p == json_of(read[p["forward"].get<std::size_t>()]));

  auto [status, why] = error_of([&] { (void)curve_page(s, "sweep-a", {{"from", "20"}, {"to", "10"}}); });
  BOOST_TEST(status == 400);
  BOOST_TEST(why.find("'from' (20) is past 'to' (10)") == 0u);
  BOOST_TEST(error_of([&] { (void)curve_page(s, "sweep-a", {{"fact", "nobody_told"}}); }).first == 404);
}

BOOST_FIXTURE_TEST_CASE(the_curve_figure_is_soma_plots_and_compares_runs, fixture) {
  auto svg = curve_svg(s, "sweep-a", {});
  BOOST_TEST(svg.find("<title>loss over run sweep-a</title>") != std::string::npos);
  // Where the chart maps data, for the page's hover: forwards 0 to 249.
  BOOST_TEST(svg.find("data-x=\"0 249\"") != std::string::npos);
  auto zoomed = curve_svg(s, "sweep-a", {{"from", "100"}, {"to", "199"}});
  BOOST_TEST(zoomed.find("data-x=\"100 199\"") != std::string::npos);
  BOOST_TEST(zoomed.find("100 values told") != std::string::npos);
  auto both = curve_svg(s, "sweep-a", {{"with", "sweep-b"}});
  BOOST_TEST(both.find("<title>loss over 2 runs</title>") != std::string::npos);
  BOOST_TEST(both.find("sweep-b (window") != std::string::npos);
  // A name the store has no run of costs only itself: the others are drawn,
  // and the figure names it for the page (issue 26, item 3).
  auto typo = curve_svg(s, "sweep-a", {{"with", "sweep-b,nope,a/b"}});
  BOOST_TEST(typo.find("<title>loss over 2 runs</title>") != std::string::npos);
  BOOST_TEST(typo.find("data-unknown=\"nope,a/b\"") != std::string::npos, typo.substr(0, 600));
  BOOST_TEST(curve_svg(s, "sweep-a", {{"with", "sweep-b"}}).find("data-unknown") == std::string::npos);
  BOOST_TEST(curve_svg(s, "sweep-a", {{"with", "nope"}}).find("<title>loss over run sweep-a</title>")
             != std::string::npos);
  // A run compared that told nothing of the fact is named on the figure; one
  // whose records are damaged is an error, not a run that told nothing.
  soma_test::write_run(s, "silent", {{{"ran", {{"node", "a"}, {"took_us", 1}}}}});
  auto with_silent = curve_svg(s, "sweep-a", {{"with", "silent"}});
  BOOST_TEST(with_silent.find("told nothing: silent") != std::string::npos, with_silent.substr(0, 600));
  auto key = soma::detail::record_key("sweep-b", 2);
  auto bytes = soma::detail::encode_facts(soma_test::forward_of(2).facts, key);
  bytes.back() = static_cast<char>(bytes.back() ^ 1);
  s.env().write([&](MDB_txn* txn, auto& dbi) {
    s.env().put(txn, dbi(soma::detail::db::facts), key, bytes);
  });
  BOOST_TEST(error_of([&] { (void)curve_svg(s, "sweep-a", {{"with", "sweep-b"}}); }).first == 500);
  BOOST_TEST(spent_svg(s, "sweep-a", {}).find("<svg") != std::string::npos);
}

// x=time: the curve against each forward's wall time, as soma plot --x time
// draws it; each hover point carries its x (seconds since the first value),
// which is its record's when_us less the first's.
BOOST_FIXTURE_TEST_CASE(the_curve_is_drawn_against_wall_time, fixture) {
  // Forwards 5 to 24: the store's records say a second for every ten.
  auto svg = curve_svg(s, "sweep-a", {{"x", "time"}, {"from", "5"}, {"to", "24"}});
  BOOST_TEST(svg.find(">seconds since the first value</text>") != std::string::npos,
             svg.substr(0, 800));
  auto at = svg.find("data-points=\"");
  BOOST_REQUIRE(at != std::string::npos);
  std::istringstream points{svg.substr(at + 13, svg.find('"', at + 13) - at - 13)};
  auto records = soma::forwards(s, "sweep-a", 5, 20).records;
  BOOST_REQUIRE(records.back().when_us > records.front().when_us); // x that differ
  std::string one;
  std::size_t i = 0;
  while (std::getline(points, one, ';')) {
    std::istringstream fields{one};
    std::uint64_t n = 0;
    double v = 0, x = -1;
    fields >> n >> v >> x;
    BOOST_REQUIRE(i < records.size());
    BOOST_TEST(n == records[i].forward);
    BOOST_TEST(x == static_cast<double>(records[i].when_us - records[0].when_us) / 1e6,
               boost::test_tools::tolerance(1e-9));
    ++i;
  }
  BOOST_TEST(i == 20u);
  BOOST_TEST(svg.find("data-x=\"0 2\"") != std::string::npos); // 0 to 2 s
  BOOST_TEST(curve_svg(s, "sweep-a", {{"x", "forward"}}).find(">forward</text>") != std::string::npos);
  auto [status, why] = error_of([&] { (void)curve_svg(s, "sweep-a", {{"x", "wall"}}); });
  BOOST_TEST(status == 400);
  BOOST_TEST(why.find("'x' is forward") != std::string::npos, why);
  BOOST_TEST(error_of([&] { (void)curve_svg(s, "sweep-a", {{"x", "time"}, {"with", "sweep-b"}}); }).first
             == 400);
}

// Runs compared are named by what they were, as soma plot progress names
// them: their params, with the id where two have the same (issue 38).
BOOST_FIXTURE_TEST_CASE(runs_compared_are_named_by_their_params, fixture) {
  auto loss = [](double v) {
    return std::vector<soma_test::written>{{soma::record{}, {soma::fact{"loss", {{"value", v}}}}}};
  };
  soma_test::write_forwards(s, "lr.0", loss(1.0), 0, {}, {{"lr", 0.05}});
  soma_test::write_forwards(s, "lr.1", loss(2.0), 0, {}, {{"lr", 0.1}});
  soma_test::write_forwards(s, "lr.2", loss(3.0), 0, {}, {{"lr", 0.1}});
  auto svg = curve_svg(s, "lr.0", {{"with", "lr.1,lr.2,sweep-b"}});
  BOOST_TEST(svg.find(">lr=0.05 (window 1)<") != std::string::npos, svg.substr(0, 800));
  BOOST_TEST(svg.find(">lr=0.1 (lr.1) (window 1)<") != std::string::npos);
  BOOST_TEST(svg.find(">lr=0.1 (lr.2) (window 1)<") != std::string::npos);
  BOOST_TEST(svg.find(">sweep-b (window 1)<") != std::string::npos); // no params: its id
  BOOST_TEST(svg.find(">lr.0 (window") == std::string::npos);
}

// The options of soma plot progress: a log y axis and the rolling mean's
// window, the same words on the figure; an even window is a 400 that says
// why. The figure is also a PNG, and the series a CSV of soma curve's rows.
BOOST_FIXTURE_TEST_CASE(the_curve_takes_plots_log_axis_and_window_and_downloads, fixture) {
  auto log = curve_svg(s, "sweep-a", {{"log_y", "1"}});
  // loss is 10 / (n + 1): from 10 down to 0.04, so decades 0.01 to 10.
  BOOST_TEST(log.find("data-y=\"0.01 10\"") != std::string::npos, log.substr(0, 600));
  BOOST_TEST(curve_svg(s, "sweep-a", {{"log_y", "0"}}).find("data-y=\"0.01 10\"") == std::string::npos);
  auto windowed = curve_svg(s, "sweep-a", {{"window", "31"}});
  BOOST_TEST(windowed.find("rolling mean over 31 values") != std::string::npos);
  BOOST_TEST(curve_svg(s, "sweep-a", {{"window", "31"}, {"with", "sweep-b"}}).find("sweep-b (window 29)")
             != std::string::npos); // 31 is wider than sweep-b's 30 values: narrowed to fit
  auto [status, why] = error_of([&] { (void)curve_svg(s, "sweep-a", {{"window", "4"}}); });
  BOOST_TEST(status == 400);
  BOOST_TEST(why.find("must be odd") != std::string::npos, why);
  BOOST_TEST(error_of([&] { (void)curve_svg(s, "sweep-a", {{"log_y", "yes"}}); }).first == 400);
  BOOST_TEST(curve_png(s, "sweep-a", {{"log_y", "1"}}).starts_with("\x89PNG"));
  auto csv = curve_csv(s, "sweep-a", {{"from", "3"}, {"to", "4"}});
  BOOST_TEST(csv == "forward,value\n3,2.5\n4,2.0\n"); // the values as --json has them
  BOOST_TEST(error_of([&] { (void)curve_csv(s, "nope", {}); }).first == 404);
}

// Two runs node by node: each side soma::nodes' row, the difference B - A,
// a node only one run has null on the other side and counted 0.
BOOST_FIXTURE_TEST_CASE(two_runs_compare_node_by_node, fixture) {
  soma_test::write_run(s, "other", {{{"ran", {{"node", "tokenize"}, {"took_us", 5}}},
                                     {"ran", {{"node", "extra"}, {"took_us", 7}}}}});
  auto c = compare_page(s, "sweep-b", "other");
  BOOST_TEST(c["a"] == "sweep-b");
  BOOST_TEST(c["b"] == "other");
  BOOST_TEST(c["params"] == json::array());
  BOOST_REQUIRE_EQUAL(c["nodes"].size(), 3u);
  auto a = soma::nodes(s, "sweep-b");
  BOOST_TEST(c["nodes"][0]["node"] == "tokenize");
  BOOST_TEST(c["nodes"][0]["a"]["ran"] == a[0].ran);
  BOOST_TEST(c["nodes"][0]["a"]["took_us"] == a[0].took_us);
  BOOST_TEST(c["nodes"][0]["b"]["took_us"] == 5);
  BOOST_TEST(c["nodes"][0]["difference"]["ran"] == 1 - static_cast<std::int64_t>(a[0].ran));
  BOOST_TEST(c["nodes"][0]["difference"]["took_us"] == 5 - a[0].took_us);
  BOOST_TEST(c["nodes"][1]["node"] == "score");
  BOOST_TEST(c["nodes"][1]["b"].is_null());
  BOOST_TEST(c["nodes"][1]["difference"]["ran"] == -static_cast<std::int64_t>(a[1].ran));
  BOOST_TEST(c["nodes"][2]["node"] == "extra");
  BOOST_TEST(c["nodes"][2]["a"].is_null());
  BOOST_TEST(c["nodes"][2]["difference"]["mean_us"] == 7.0);
  auto [status, why] = error_of([&] { (void)compare_page(s, "sweep-a", "nope"); });
  BOOST_TEST(status == 404);
  BOOST_TEST(why.find("no run 'nope'") != std::string::npos, why);
}

BOOST_FIXTURE_TEST_CASE(fleet_trials_and_opinions_are_the_commands_json, fixture) {
  auto fleet = standing_page(s);
  BOOST_REQUIRE_EQUAL(fleet["machines"].size(), 2u);
  BOOST_TEST(fleet["machines"][0]["id"] == "host-1");
  BOOST_TEST(fleet["machines"][0]["quiet_s"] == 0.0);
  BOOST_TEST(fleet["machines"][1]["quiet_s"] == 2.5);
  BOOST_TEST(fleet["machines"][1]["served"] == 7);

  auto studies = studies_page(s);
  BOOST_REQUIRE_EQUAL(studies["studies"].size(), 1u);
  BOOST_TEST(studies["studies"][0]["study"] == "lr");
  BOOST_TEST(studies["studies"][0]["waiting"] == 2);
  auto study = study_page(s, "lr");
  BOOST_REQUIRE_EQUAL(study["trials"].size(), 2u);
  BOOST_TEST(study["trials"][1]["params"]["lr"] == 0.01);
  BOOST_TEST(error_of([&] { (void)study_page(s, "nope"); }).first == 404);

  auto health = health_page(s, {});
  BOOST_TEST(health["note"].get<std::string>().find("opinions, not facts") == 0u);
  // sweep-a broke 25 times in its last 100 forwards: broke_forwards fires.
  bool broke = false;
  for (auto& op : health["opinions"])
    broke |= op["rule"] == "broke_forwards" && op["run"] == "sweep-a";
  BOOST_TEST(broke, health.dump());

  // Replayed over the minute before the newest write, a step a second: the
  // same opinion, an episode still holding at the window's end.
  auto replay = health_replay_page(s, {{"span_s", "60"}});
  BOOST_TEST(replay["note"].get<std::string>().find("opinions, not facts") == 0u);
  BOOST_TEST(replay["steps"] == 61);
  bool held = false;
  for (auto& ep : replay["episodes"])
    held |= ep["rule"] == "broke_forwards" && ep["run"] == "sweep-a" && ep["cleared_us"].is_null()
            && !ep["firing_us"].is_null();
  BOOST_TEST(held, replay.dump());
  auto [status, why] = error_of([&] { (void)health_replay_page(s, {{"span_s", "20000"}, {"every_ms", "100"}}); });
  BOOST_TEST(status == 400);
  BOOST_TEST(why.find("at most 100000 steps") != std::string::npos, why);
  // A window the page may not ask, whatever its step: a replay reads it all.
  auto [too_long, said] = error_of([&] { (void)health_replay_page(s, {{"span_s", "200000"}, {"every_ms", "60000"}}); });
  BOOST_TEST(too_long == 400);
  BOOST_TEST(said.find("a replay on the page covers at most a day (86400 s), not 200000 s") != std::string::npos, said);
}

// The status is the kind of the reader's error, whatever its words: a name
// that cannot be a run 400, damage 500 (and the rest still reads).
BOOST_FIXTURE_TEST_CASE(statuses_follow_the_kind_of_the_readers_error, fixture) {
  auto [status, why] = error_of([&] { (void)run_page(s, "a/b"); });
  BOOST_TEST(status == 400);
  BOOST_TEST(why.find("'a/b'") != std::string::npos, why);
  auto key = soma::detail::record_key("sweep-a", 3);
  auto bytes = soma::detail::encode_facts(soma_test::forward_of(3).facts, key);
  bytes.back() = static_cast<char>(bytes.back() ^ 1);
  s.env().write([&](MDB_txn* txn, auto& dbi) {
    s.env().put(txn, dbi(soma::detail::db::facts), key, bytes);
  });
  std::tie(status, why) = error_of([&] { (void)forward_page(s, "sweep-a", 3); });
  BOOST_TEST(status == 500);
  BOOST_TEST(why.starts_with("the fact blob of forward 3 of run 'sweep-a' in the store '"), why);
  BOOST_TEST(why.find("is damaged") != std::string::npos, why);
  BOOST_TEST(forward_page(s, "sweep-a", 4)["facts"].size() == 5u);
}

BOOST_AUTO_TEST_CASE(runs_are_found_and_ordered_as_soma_runs_finds_and_orders_them) {
  auto page = [](all_params p) { return runs_page(found_rows(), p); };
  // Without a sort: most recent first, as the page always was; reversed, oldest first.
  BOOST_TEST(listed(page({})) == (names{"plain", "lr.3", "lr.03", "lr.1"}));
  BOOST_TEST(listed(page({{"reverse", "1"}})) == (names{"lr.1", "lr.03", "lr.3", "plain"}));
  // Each filter keeps what select_runs keeps, as soma runs gives it.
  BOOST_TEST(listed(page({{"status", "died"}, {"status", "running"}, {"sort", "run"}}))
             == selected({.statuses = {"died", "running"}, .sort = "run"}));
  BOOST_TEST(listed(page({{"status", "died"}, {"status", "running"}})) == (names{"lr.3", "lr.03"}));
  BOOST_TEST(listed(page({{"tag", "sweep"}, {"tag", "short"}})) == (names{"lr.03"}));
  BOOST_TEST(listed(page({{"tag", "sweep"}})) == (names{"lr.3", "lr.03"}));
  BOOST_TEST(listed(page({{"param", "lr=1e-1"}})) == (names{"lr.1"}));
  BOOST_TEST(listed(page({{"param", "seed"}, {"param", "lr=0.03"}})) == (names{"lr.03"}));
  BOOST_TEST(listed(page({{"param", "seed"}})) == (names{"lr.03", "lr.1"}));
  BOOST_TEST(listed(page({{"prefix", "lr.0"}})) == (names{"lr.03"}));
  // Sorted by a parameter: runs without it last; reversed, first.
  BOOST_TEST(listed(page({{"sort", "lr"}})) == (names{"lr.03", "lr.1", "lr.3", "plain"}));
  BOOST_TEST(listed(page({{"sort", "lr"}})) == selected({.sort = "lr"}));
  BOOST_TEST(listed(page({{"sort", "lr"}, {"reverse", "1"}})) == selected({.sort = "lr", .reverse = true}));
  BOOST_TEST(listed(page({{"sort", "lr"}, {"reverse", "1"}})).front() == "plain");
  // The part-of-a-name filter still narrows what the query kept, and the
  // total and paging count what is kept.
  auto both = page({{"tag", "sweep"}, {"filter", "03"}, {"limit", "1"}});
  BOOST_TEST(both["total"] == 1);
  BOOST_TEST(listed(both) == (names{"lr.03"}));
  auto paged = page({{"sort", "run"}, {"limit", "2"}, {"offset", "2"}});
  BOOST_TEST(paged["total"] == 4);
  BOOST_TEST(listed(paged) == (names{"lr.3", "plain"}));
  // What was asked, and what can be sorted by.
  auto asked = page({{"status", "died"}, {"tag", "sweep"}, {"param", "lr"}, {"sort", "lr"}});
  BOOST_TEST(asked["query"] == (json{{"prefix", ""}, {"status", json::array({"died"})},
                                     {"tag", json::array({"sweep"})}, {"param", json::array({"lr"})},
                                     {"where", json::array()}, {"sort", "lr"}, {"reverse", false}}),
             asked["query"].dump());
  BOOST_TEST(asked["param_names"] == json::array({"lr", "seed"}));
  BOOST_TEST(asked["value_names"] == json::array()); // these rows summarise nothing
  auto where = page({{"where", "loss<1"}});
  BOOST_TEST(where["query"]["where"] == json::array({"loss<1"}));
  BOOST_TEST(where["total"] == 0); // no run has a loss: none passes a test of it
}

BOOST_AUTO_TEST_CASE(a_query_the_runs_cannot_answer_is_a_400_naming_what_was_wrong) {
  auto refused = [](all_params p) { return error_of([&] { (void)runs_page(found_rows(), p); }); };
  auto [status, why] = refused({{"status", "running"}, {"status", "bogus"}});
  BOOST_TEST(status == 400);
  BOOST_TEST(why.starts_with("status bogus: a run stands running, finished, died or unknown"), why);
  std::tie(status, why) = refused({{"sort", "nope"}});
  BOOST_TEST(status == 400);
  BOOST_TEST(why.starts_with("sort nope: it is not a column (first, last, run, status, forwards, broke, duration, took)"), why);
  std::tie(status, why) = refused({{"param", "=3"}});
  BOOST_TEST(status == 400);
  BOOST_TEST(why.find("param '=3'") != std::string::npos, why);
  std::tie(status, why) = refused({{"reverse", "sideways"}});
  BOOST_TEST(status == 400);
  BOOST_TEST(why.find("'sideways'") != std::string::npos, why);
  // Nothing kept: nothing to order, and nothing wrong.
  BOOST_TEST(refused({{"tag", "none-has-it"}, {"sort", "nope"}}).first == 0);
}

BOOST_FIXTURE_TEST_CASE(the_store_says_when_it_last_moved_by_its_writers_clocks, fixture) {
  auto page = store_page(s, soma::runs(s));
  // host-1's reading (1,900,000,100 s) is newer than sweep-a's last forward (1,900,000,024 s).
  BOOST_TEST(page["newest_reading_us"] == 1'900'000'100'000'000);
  BOOST_TEST(page["newest_forward_us"] == 1'900'000'024'000'000);
  BOOST_TEST(page["newest_write_us"] == 1'900'000'100'000'000);
  BOOST_TEST(page["silent_after_s"] == 300.0); // the shipped silent_store's threshold
  BOOST_TEST(page["now_us"].get<std::int64_t>() > 1'700'000'000'000'000);

  soma_test::scratch empty_dir;
  soma::store empty{empty_dir / "store"};
  auto none = store_page(empty, soma::runs(empty));
  BOOST_TEST(none["newest_write_us"].is_null());
  BOOST_TEST(none["newest_reading_us"].is_null());
  BOOST_TEST(none["newest_forward_us"].is_null());
}

BOOST_AUTO_TEST_SUITE_END()
