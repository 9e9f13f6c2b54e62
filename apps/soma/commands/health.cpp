#include "commands/health.hpp"

#include <chrono>
#include <cmath>
#include <ctime>
#include <memory>
#include <ostream>

#include <CLI/CLI.hpp>

#include "soma/web/json.hpp"
#include "soma/health/judge.hpp"
#include "commands/health_replay.hpp"
#include "output.hpp"
#include "table.hpp"
#include "usage_error.hpp"

namespace soma::cli {

using web::json;
using web::json_of;



namespace {

health::rulebook book_for(const invocation& inv) {
  auto book = health::rulebook::shipped();
  if (inv.rules_given && inv.rules.empty())
    throw usage_error("--rules needs a file, not an empty text (docs/health.md says how a rules file goes)");
  if (!inv.rules.empty()) {
    try {
      book.read_file(inv.rules);
    } catch (const health::rules_error& e) {
      throw usage_error(std::string{e.what()} + " (docs/health.md says how a rules file goes)");
    }
  }
  return book;
}

void list_rules(const health::rulebook& book, const invocation& inv, std::ostream& out) {
  if (for_script(inv)) {
    auto array = json::array();
    for (auto& e : book.rules()) {
      auto settings = json::object();
      for (auto& s : e.settings.all())
        settings[s.name] = s.value;
      array.push_back(json{{"rule", e.rule->name()},
                           {"looks_at", e.rule->looks_at()},
                           {"settings", settings},
                           {"condition", e.rule->condition()}});
    }
    return print_rows(out, inv, array);
  }
  table t{{{"rule"}, {"looks at"}, {"settings"}, {"condition"}}};
  for (auto& e : book.rules()) {
    std::string settings;
    for (auto& s : e.settings.all())
      settings += (settings.empty() ? "" : " ") + s.name + "="
                  + (s.name == "enabled" ? (s.value != 0 ? "true" : "false") : health::number(s.value));
    t.add({e.rule->name(), e.rule->looks_at(), settings, e.rule->condition()});
  }
  t.print(out, true);
}

template <class Texts>
void replay_options_of(invocation& inv, const Texts& given, bool replay, bool every, bool compare,
                       const CLI::App& app) {
  if (!replay) {
    if (every || compare)
      throw usage_error(std::string{"`soma health "} + (every ? "--every" : "--compare")
                        + "` goes with --replay FROM..TO; " + help_hint(app));
    return;
  }
  if (inv.at_us)
    throw usage_error("`soma health --replay FROM..TO` judges a window, --at one moment: give "
                      "one of them; " + help_hint(app));
  auto w = parse_window(given.replay);
  inv.replay_from_us = w.from_us;
  inv.replay_to_us = w.to_us;
  if (every)
    inv.every_us = parse_every(given.every);
  if (compare && inv.compare_rules.empty())
    throw usage_error("--compare needs a rules file, not an empty text (docs/health.md says how "
                      "a rules file goes)");
}

} // namespace

finish add_health(command_line& line) {
  auto& inv = line.inv;
  auto* health = line.app.add_subcommand(
    "health", "opinions of the store at stated thresholds (rules with a `for`: pending, then "
              "firing), computed on read and never written; exits 0 whatever it finds");
  health->add_option("RUN", inv.run, "only opinions about this run");
  auto* rules = health->add_option("--rules", inv.rules,
                                   "a rules file overriding thresholds (docs/health.md)")
                  ->option_text("FILE");
  struct texts {
    std::string at, fail_on, replay, every;
  };
  auto given = std::make_shared<texts>();
  auto* at = health->add_option("--at", given->at,
                                "judge as of then: unix seconds, a UTC time such as "
                                "2026-12-01T21:30:00Z, or -30s, -10m, -2h, -1d before now")
               ->option_text("TIME");
  health->add_option("--fail-on", given->fail_on, "exit 3 when an opinion is firing (for scripts)")
    ->option_text("firing");
  health->add_flag("--list", inv.list_rules, "list the rules, their settings and conditions");
  auto* replay = health->add_option("--replay", given->replay,
                                    "judge at every step of a past window and print each "
                                    "opinion's episodes (pending, firing, cleared); FROM and TO as "
                                    "--at takes them, TO left out for the newest write")
                   ->option_text("FROM..TO");
  auto* every = health->add_option("--every", given->every,
                                   "--replay's step: 500ms, 1s (the default), 2m")
                  ->option_text("S");
  auto* compare = health->add_option("--compare", inv.compare_rules,
                                     "--replay a second time with the shipped rules and this "
                                     "rules file, and print the episodes that differ")
                    ->option_text("FILE");
  common_options(*health, line);
  return finish_as(health, command::health, [rules, at, given, replay, every, compare,
                                             &app = line.app](invocation& inv) {
    inv.rules_given = rules->count() > 0;
    if (at->count() > 0)
      inv.at_us = parse_moment(given->at);
    replay_options_of(inv, *given, replay->count() > 0, every->count() > 0, compare->count() > 0, app);
    if (!given->fail_on.empty() && given->fail_on != "firing")
      throw usage_error("`soma health --fail-on` takes firing (exit 3 when an opinion fires), not '"
                        + given->fail_on + "'; " + help_hint(app));
    inv.fail_on_firing = !given->fail_on.empty();
  });
}

std::int64_t parse_moment(const std::string& text) {
  auto bad = [&]() -> usage_error {
    return usage_error("TIME of `soma health --at TIME` is unix seconds (1764625000), a UTC time "
                       "(2026-12-01T21:30:00Z) or a time before now (-30s, -10m, -2h, -1d), not '"
                       + text + "'");
  };
  if (text.empty())
    throw bad();
  if (text.front() == '-') {
    static constexpr std::pair<char, double> units[] = {{'s', 1}, {'m', 60}, {'h', 3600}, {'d', 86400}};
    for (auto [unit, scale] : units)
      if (text.size() > 2 && text.back() == unit) {
        std::size_t used = 0;
        double n = 0;
        try {
          n = std::stod(text.substr(1, text.size() - 2), &used);
        } catch (const std::exception&) {
          throw bad();
        }
        if (used != text.size() - 2 || !(n >= 0) || !(n * scale <= 253402300799.0))
          throw bad();
        auto now = std::chrono::duration_cast<std::chrono::microseconds>(
                     std::chrono::system_clock::now().time_since_epoch())
                     .count();
        auto at = now - static_cast<std::int64_t>(n * scale * 1e6);
        if (at < 0)
          throw bad(); // before 1970
        return at;
      }
    throw bad();
  }
  if (text.find('T') != std::string::npos) {
    std::tm parts{};
    auto body = text.back() == 'Z' ? text.substr(0, text.size() - 1) : text;
    const char* end = strptime(body.c_str(), "%Y-%m-%dT%H:%M:%S", &parts);
    if (!end) {
      parts = {};
      end = strptime(body.c_str(), "%Y-%m-%dT%H:%M", &parts);
    }
    if (!end || *end != '\0')
      throw bad();
    auto seconds = timegm(&parts);
    if (seconds < 0)
      throw bad(); // before 1970: nothing soma wrote is that old
    return static_cast<std::int64_t>(seconds) * 1'000'000;
  }
  std::size_t used = 0;
  double seconds = 0;
  try {
    seconds = std::stod(text, &used);
  } catch (const std::exception&) {
    throw bad();
  }
  // 9999-12-31T23:59:59Z at most: a moment, not an overflow.
  if (used != text.size() || !(seconds >= 0) || !(seconds <= 253402300799.0))
    throw bad();
  return static_cast<std::int64_t>(seconds * 1e6);
}

int show_health(const store& s, const invocation& inv, std::ostream& out, std::ostream& err) {
  auto book = book_for(inv);
  if (inv.list_rules) {
    list_rules(book, inv, out);
    return exit_ok;
  }
  if (inv.replay_from_us)
    return show_replay(s, book, inv, out, err);
  health::judge_options o;
  o.at_us = inv.at_us;
  if (!inv.run.empty())
    o.run = inv.run;
  auto j = health::judge(s, book, o);
  bool firing = false;
  for (auto& op : j.opinions)
    firing |= op.state == health::status::firing;
  if (for_script(inv)) {
    auto array = json::array();
    for (auto& op : j.opinions)
      array.push_back(json_of(op));
    print_rows(out, inv, array);
  } else {
    table t{{{"opinion"},
             {"rule"},
             {"subject"},
             {"measured"},
             {"value", align::right},
             {"over", align::right},
             {"threshold set as"},
             {"since"},
             {"for", align::right}}};
    for (auto& op : j.opinions)
      t.add({std::string{to_string(op.state)}, op.rule, op.subject, op.measure,
             health::number(op.value), health::number(op.threshold),
             op.threshold_is.empty() ? "-" : op.threshold_is, utc(op.since_us),
             health::number(static_cast<double>(op.for_us) / 1e6) + " s"});
    t.print(out);
  }
  // What was judged, for a person: an empty table says nothing by itself.
  std::size_t on = 0;
  for (auto& e : book.rules())
    on += e.settings.enabled();
  err << "soma: opinions, not facts: " << on << " rules judged " << j.machines << " machines, "
      << j.runs << " runs and " << j.trials << " trials as of "
      << (j.now_us > 0 ? utc(j.now_us) : std::string{"(nothing written yet)"})
      << (inv.at_us ? " (--at " + utc(*inv.at_us) + ")" : std::string{}) << ": "
      << j.opinions.size() << " held (" << (firing ? "some" : "none") << " firing)\n";
  return inv.fail_on_firing && firing ? exit_firing : exit_ok;
}

} // namespace soma::cli
