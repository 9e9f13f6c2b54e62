// `soma health`: the table says "opinion", a successful read exits 0 whatever
// it finds, --fail-on firing is for scripts, --json, RUN, --rules, --at, and
// bad command lines; `soma live` shows firing opinions in a line of its own.

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <sys/wait.h>

#include "making.hpp"
#include "scratch.hpp"

using namespace soma_test;

namespace {

struct answer {
  int status = -1;
  std::string out, err;
};

std::string slurp(const std::string& path) {
  std::ifstream in{path};
  std::ostringstream all;
  all << in.rdbuf();
  return all.str();
}

// Runs `soma ARGS` (words without spaces or quotes) and takes what it said.
answer soma_cli(const scratch& tmp, const std::string& args) {
  auto out = tmp / "out", err = tmp / "err";
  std::string command = SOMA_CLI;
  command.append(" ").append(args).append(" >").append(out).append(" 2>").append(err);
  int raw = std::system(command.c_str());
  return {WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, slurp(out), slurp(err)};
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// A store where machine a-1 went quiet (firing), and run r broke once.
std::string troubled_store(const scratch& tmp) {
  auto dir = tmp / "s";
  soma::store s{dir};
  reading_at(s, "a-1", t0_us);
  std::vector<written> fs;
  for (int i = 0; i < 5; ++i)
    fs.push_back({record_at(t0_s + i, i == 2 ? soma::outcome::broke : soma::outcome::ok), {}});
  write_forwards(s, "r", fs);
  reading_at(s, "b-2", t0_us + 10 * s_us);
  return dir;
}

} // namespace

BOOST_AUTO_TEST_SUITE(command)

BOOST_AUTO_TEST_CASE(a_table_headed_opinion_and_exit_0_whatever_it_finds) {
  scratch tmp;
  auto dir = troubled_store(tmp);
  auto a = soma_cli(tmp, "health --store " + dir);
  BOOST_TEST(a.status == 0, a.err);
  BOOST_TEST(a.out.starts_with("opinion  rule "), a.out);
  BOOST_TEST(has(a.out, "firing   quiet_machine   machine a-1"), a.out);
  BOOST_TEST(has(a.out, "firing   broke_forwards  run r"), a.out);
  BOOST_TEST(has(a.out, "5 x its reporting interval 0.5 s"), a.out);
  BOOST_TEST(has(a.err, "soma: opinions, not facts: 10 rules judged 2 machines, 1 runs and 0 trials as of "
                        "2030-03-17T17:46:50.000Z: 2 held (some firing)"),
             a.err);
  auto f = soma_cli(tmp, "health --store " + dir + " --fail-on firing");
  BOOST_TEST(f.status == 3, f.err);
  BOOST_TEST(f.out == a.out);
  // As of a moment when nothing was wrong, nothing fires, and --fail-on passes.
  auto then = soma_cli(tmp, "health --store " + dir + " --fail-on firing --at "
                              + std::to_string(t0_s + 1));
  BOOST_TEST(then.status == 0, then.err);
  BOOST_TEST(then.out.empty(), then.out);
  BOOST_TEST(has(then.err, "0 held (none firing)"), then.err);
  BOOST_TEST(has(then.err, "(--at 2030-03-17T17:46:41.000Z)"), then.err);
  // The same moment written as UTC.
  auto utc = soma_cli(tmp, "health --store " + dir + " --at 2030-03-17T17:46:41Z");
  BOOST_TEST(utc.status == 0, utc.err);
  BOOST_TEST(utc.err == then.err);
}

BOOST_AUTO_TEST_CASE(json_run_and_rules_file) {
  scratch tmp;
  auto dir = troubled_store(tmp);
  auto j = soma_cli(tmp, "health --store " + dir + " --json");
  BOOST_TEST(j.status == 0, j.err);
  BOOST_TEST(j.out.starts_with("[\n  {\n    \"opinion\": \"firing\",\n    \"rule\": \"quiet_machine\","), j.out);
  BOOST_TEST(has(j.out, "\"subject\": \"machine a-1\""), j.out);
  BOOST_TEST(has(j.out, "\"run\": null"), j.out);
  BOOST_TEST(has(j.out, "\"value\": 10.0"), j.out);
  BOOST_TEST(has(j.out, "\"threshold\": 2.5"), j.out);
  BOOST_TEST(has(j.out, "\"since_us\": 1900000002500000"), j.out);
  BOOST_TEST(has(j.out, "\"says\": \"opinion (quiet_machine, firing): machine a-1: quiet_s 10 is over 2.5"), j.out);
  auto r = soma_cli(tmp, "health r --store " + dir);
  BOOST_TEST(r.status == 0, r.err);
  BOOST_TEST(has(r.out, "broke_forwards"), r.out);
  BOOST_TEST(!has(r.out, "quiet_machine"), r.out);
  std::ofstream{tmp / "quiet.conf"} << "[quiet_machine]\nover = 30\n";
  auto q = soma_cli(tmp, "health --store " + dir + " --rules " + tmp / "quiet.conf");
  BOOST_TEST(q.status == 0, q.err);
  BOOST_TEST(!has(q.out, "quiet_machine"), q.out);
  BOOST_TEST(has(q.out, "broke_forwards"), q.out);
  auto l = soma_cli(tmp, "health --store " + dir + " --list --rules " + tmp / "quiet.conf");
  BOOST_TEST(l.status == 0, l.err);
  BOOST_TEST(has(l.out, "quiet_machine      readings          over=30 for=5 enabled=true"), l.out);
}

BOOST_AUTO_TEST_CASE(bad_command_lines_say_what_to_write) {
  scratch tmp;
  auto dir = troubled_store(tmp);
  auto at = soma_cli(tmp, "health --store " + dir + " --at yesterday");
  BOOST_TEST(at.status == 2);
  BOOST_TEST(has(at.err, "TIME of `soma health --at TIME` is unix seconds (1764625000), a UTC time "
                         "(2026-12-01T21:30:00Z) or a time before now (-30s, -10m, -2h, -1d), not 'yesterday'"),
             at.err);
  auto fail = soma_cli(tmp, "health --store " + dir + " --fail-on pending");
  BOOST_TEST(fail.status == 2);
  BOOST_TEST(has(fail.err, "`soma health --fail-on` takes firing"), fail.err);
  auto missing = soma_cli(tmp, "health --store " + dir + " --rules " + tmp / "none.conf");
  BOOST_TEST(missing.status == 2);
  BOOST_TEST(has(missing.err, "cannot read the rules file '" + tmp / "none.conf" + "'"), missing.err);
  std::ofstream{tmp / "bad.conf"} << "[quiet_machine]\nover = lots\n";
  auto bad = soma_cli(tmp, "health --store " + dir + " --rules " + tmp / "bad.conf");
  BOOST_TEST(bad.status == 2);
  BOOST_TEST(has(bad.err, tmp / "bad.conf" + ":2: 'lots' is not a number (for over) (docs/health.md"), bad.err);
  auto empty = soma_cli(tmp, "health --store " + dir + " --rules ''");
  BOOST_TEST(empty.status == 2);
  BOOST_TEST(has(empty.err, "--rules needs a file, not an empty text"), empty.err);
  auto slash = soma_cli(tmp, "health a/b --store " + dir);
  BOOST_TEST(slash.status == 2, slash.err);
  auto old = soma_cli(tmp, "health --store " + dir + " --at 1969-12-31T00:00Z");
  BOOST_TEST(old.status == 2, old.err);
  auto run = soma_cli(tmp, "health nope --store " + dir);
  BOOST_TEST(run.status == 2);
  BOOST_TEST(has(run.err, "no run 'nope'"), run.err);
  auto store = soma_cli(tmp, "health --store " + tmp / "nothing");
  BOOST_TEST(store.status == 2);
}

BOOST_AUTO_TEST_CASE(live_shows_firing_opinions_in_a_line_of_their_own) {
  scratch tmp;
  auto dir = troubled_store(tmp);
  auto a = soma_cli(tmp, "live r --once --store " + dir);
  BOOST_TEST(a.status == 0, a.err);
  std::istringstream lines{a.out};
  std::string line;
  std::vector<std::string> all;
  while (std::getline(lines, line))
    all.push_back(line);
  BOOST_REQUIRE(all.size() >= 3u);
  BOOST_TEST(all[1].starts_with("forwards 5   ok 4   broke 1"), all[1]);
  // The opinions' own line, after the rate (and, for an old run, the quiet
  // line); 80 columns when stdout is no terminal: the line is cut there.
  // Those `soma health r` holds, about the run: not machine a-1's, quiet
  // as it is, which served the run nothing.
  auto opinions = std::find_if(all.begin(), all.end(), [](const std::string& l) {
    return l.starts_with("opinions (health rules, firing)");
  });
  BOOST_REQUIRE_MESSAGE(opinions != all.end(), a.out);
  BOOST_TEST(opinions->starts_with("opinions (health rules, firing): broke_forwards run r: broke"),
             *opinions);
  BOOST_TEST(!has(a.out, "quiet_machine"), a.out);
}

BOOST_AUTO_TEST_CASE(replay_prints_each_episode_with_its_edges_and_their_values) {
  scratch tmp;
  auto dir = tmp / "s";
  {
    soma::store s{dir};
    write_gap(s);
  }
  auto window = std::to_string(t0_s) + ".." + std::to_string(t0_s + 60);
  auto a = soma_cli(tmp, "health --store " + dir + " --replay " + window);
  BOOST_TEST(a.status == 0, a.err);
  BOOST_TEST(a.out.starts_with("rule           subject      measured  over  for  pending"), a.out);
  BOOST_TEST(has(a.out, "quiet_machine  machine b-1  quiet_s    2.5  5 s  2030-03-17T17:47:03.000Z      3  "
                        "2030-03-17T17:47:08.000Z      8  2030-03-17T17:47:20.000Z          19"),
             a.out);
  BOOST_TEST(std::count(a.out.begin(), a.out.end(), '\n') == 2);
  BOOST_TEST(a.err == "soma: opinions, not facts: 10 rules replayed over 61 steps from "
                      "2030-03-17T17:46:40.000Z to 2030-03-17T17:47:40.000Z (every 1 s): 1 episode "
                      "(1 fired)\n",
             a.err);
  BOOST_TEST(soma_cli(tmp, "health --store " + dir + " --replay " + window + " --fail-on firing").status == 3);
  // TO left out: to the newest write; a step of 2 s.
  auto b = soma_cli(tmp, "health --store " + dir + " --replay " + std::to_string(t0_s) + ".. --every 2s --json");
  BOOST_TEST(b.status == 0, b.err);
  BOOST_TEST(has(b.out, "\"pending_us\": " + std::to_string(t0_us + 24 * s_us)), b.out);
  BOOST_TEST(has(b.out, "\"pending_value\": 4.0"), b.out);
  BOOST_TEST(has(b.out, "\"firing_us\": " + std::to_string(t0_us + 28 * s_us)), b.out);
  BOOST_TEST(has(b.out, "\"cleared_us\": " + std::to_string(t0_us + 40 * s_us)), b.out);
  BOOST_TEST(has(b.out, "\"last_value\": 18.0"), b.out); // at t0 + 38 s
  BOOST_TEST(has(b.err, "replayed over 31 steps"), b.err);
}

BOOST_AUTO_TEST_CASE(replay_compare_prints_the_episodes_that_differ) {
  scratch tmp;
  auto dir = tmp / "s";
  {
    soma::store s{dir};
    write_gap(s);
  }
  std::ofstream{tmp / "later.rules"} << "[quiet_machine]\nover = 20\n";
  std::ofstream{tmp / "never.rules"} << "[quiet_machine]\nover = 50\n";
  auto window = std::to_string(t0_s) + ".." + std::to_string(t0_s + 60);
  auto a = soma_cli(tmp, "health --store " + dir + " --replay " + window + " --compare " + (tmp / "later.rules"));
  BOOST_TEST(a.status == 0, a.err);
  BOOST_TEST(a.out.starts_with("difference    rule           subject      A over"), a.out);
  BOOST_TEST(has(a.out, "firing moved  quiet_machine  machine b-1     2.5  2030-03-17T17:47:03.000Z / "
                        "2030-03-17T17:47:08.000Z / 2030-03-17T17:47:20.000Z      10  "
                        "2030-03-17T17:47:11.000Z / 2030-03-17T17:47:15.000Z / 2030-03-17T17:47:20.000Z"),
             a.out);
  BOOST_TEST(a.out.ends_with(" +7 s\n"), a.out);
  BOOST_TEST(has(a.err, "A (the shipped rules) held 1 episode (1 fired), B (" + (tmp / "later.rules")
                          + ") 1 (1 fired): 1 differ"),
             a.err);
  auto n = soma_cli(tmp, "health --store " + dir + " --replay " + window + " --compare " + (tmp / "never.rules") + " --csv");
  BOOST_TEST(n.status == 0, n.err);
  BOOST_TEST(n.out.starts_with("difference,rule,subject,moved_s,a_pending_us,"), n.out);
  BOOST_TEST(has(n.out, "only in A,quiet_machine,machine b-1,0.0," + std::to_string(t0_us + 23 * s_us)), n.out);
}

BOOST_AUTO_TEST_CASE(replay_says_what_was_wrong_with_its_command_line) {
  scratch tmp;
  auto dir = tmp / "s";
  {
    soma::store s{dir};
    write_gap(s);
  }
  auto says = [&](const std::string& args, const std::string& part) {
    auto a = soma_cli(tmp, "health --store " + dir + " " + args);
    BOOST_TEST(a.status == 2, args << ": " << a.err);
    BOOST_TEST(has(a.err, part), args << ": " << a.err);
    BOOST_TEST(a.out.empty(), a.out);
  };
  auto t0 = std::to_string(t0_s);
  says("--replay " + std::to_string(t0_s + 10) + ".." + t0, "is after TO");
  says("--replay " + std::to_string(t0_s + 1000) + "..", "is after the newest write");
  says("--replay " + t0, "FROM..TO, each unix seconds");
  says("--replay yesterday..", "not 'yesterday..'");
  says("--replay " + t0 + ".. --every 0", "takes a step over 0");
  says("--replay " + t0 + ".. --every fast", "not 'fast'");
  says("--replay 0.." + t0 + " --every 1ms", "more than the 1000000 one replay takes");
  says("--every 2s", "goes with --replay FROM..TO");
  says("--compare x.rules", "goes with --replay FROM..TO");
  says("--replay " + t0 + ".. --at " + t0, "give one of them");
  says("--replay " + t0 + ".. --compare " + (tmp / "missing.rules"), "missing.rules");
  {
    soma::store empty{tmp / "empty"};
  }
  auto e = soma_cli(tmp, "health --store " + (tmp / "empty") + " --replay " + t0 + "..");
  BOOST_TEST(e.status == 2, e.err);
  BOOST_TEST(has(e.err, "no reading or forward yet"), e.err);
}

BOOST_AUTO_TEST_SUITE_END()
