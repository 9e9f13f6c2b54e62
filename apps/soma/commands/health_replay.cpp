#include "commands/health_replay.hpp"

#include <ostream>

#include "commands/health.hpp"
#include "output.hpp"
#include "soma/health/judge.hpp"
#include "soma/health/replay.hpp"
#include "soma/web/json.hpp"
#include "table.hpp"
#include "usage_error.hpp"

namespace soma::cli {

using web::json;
using web::json_of;

namespace {

const char* window_forms = "FROM..TO, each unix seconds (1764625000), a UTC time "
                           "(2026-12-01T21:30:00Z) or a time before now (-30s, -10m, -2h, -1d); "
                           "TO may be left out for the newest write (-1h..)";

std::int64_t moment_of(const std::string& part, const std::string& text) {
  try {
    return parse_moment(part);
  } catch (const usage_error&) {
    throw usage_error("`soma health --replay` takes " + std::string{window_forms} + ", not '"
                      + text + "'");
  }
}

std::string seconds(std::int64_t us) { return health::number(static_cast<double>(us) / 1e6) + " s"; }

std::string edge(const std::optional<std::int64_t>& us, const char* none) {
  return us ? utc(*us) : std::string{none};
}

void print_episodes(const health::replayed& r, const invocation& inv, std::ostream& out) {
  if (for_script(inv))
    return print_rows(out, inv, r.episodes);
  table t{{{"rule"},
           {"subject"},
           {"measured"},
           {"over", align::right},
           {"for", align::right},
           {"pending"},
           {"value", align::right},
           {"firing"},
           {"value", align::right},
           {"cleared"},
           {"last value", align::right}}};
  for (auto& ep : r.episodes)
    t.add({ep.rule, ep.subject, ep.measure, health::number(ep.threshold), seconds(ep.for_us),
           utc(ep.pending_us), health::number(ep.pending_value), edge(ep.firing_us, "-"),
           ep.firing_us ? health::number(ep.firing_value) : "-",
           edge(ep.cleared_us, "still at TO"), health::number(ep.last_value)});
  t.print(out);
}

std::string side_of(const std::optional<health::episode>& ep) {
  if (!ep)
    return "-";
  return utc(ep->pending_us) + " / " + edge(ep->firing_us, "-") + " / "
         + edge(ep->cleared_us, "still at TO");
}

void print_differences(const std::vector<health::difference>& ds, const invocation& inv,
                       std::ostream& out) {
  if (for_script(inv))
    return print_rows(out, inv, ds);
  table t{{{"difference"},
           {"rule"},
           {"subject"},
           {"A over", align::right},
           {"A pending / firing / cleared"},
           {"B over", align::right},
           {"B pending / firing / cleared"},
           {"moved", align::right}}};
  for (auto& d : ds) {
    auto& one = d.a ? *d.a : *d.b;
    auto over = [](const std::optional<health::episode>& ep) {
      return ep ? health::number(ep->threshold) : std::string{"-"};
    };
    t.add({std::string{to_string(d.is)}, one.rule, one.subject, over(d.a), side_of(d.a),
           over(d.b), side_of(d.b),
           d.is == health::difference_is::firing_moved
             ? (d.moved_us > 0 ? "+" : "") + seconds(d.moved_us)
             : "-"});
  }
  t.print(out);
}

// "1 episode", "3 episodes".
std::string episodes(std::size_t n) {
  return std::to_string(n) + (n == 1 ? " episode" : " episodes");
}

std::size_t fired(const health::replayed& r) {
  std::size_t n = 0;
  for (auto& ep : r.episodes)
    n += ep.firing_us.has_value();
  return n;
}

health::replayed replayed_by(const store& s, const health::rulebook& book,
                             const health::replay_options& o) {
  try {
    return health::replay(s, book, o);
  } catch (const health::replay_error& e) {
    throw usage_error(std::string{"`soma health --replay`: "} + e.what());
  }
}

} // namespace

replay_window parse_window(const std::string& text) {
  auto dots = text.find("..");
  if (dots == std::string::npos || dots == 0)
    throw usage_error("`soma health --replay` takes " + std::string{window_forms} + ", not '"
                      + text + "'");
  replay_window w;
  w.from_us = moment_of(text.substr(0, dots), text);
  if (dots + 2 < text.size())
    w.to_us = moment_of(text.substr(dots + 2), text);
  if (w.to_us && w.from_us > *w.to_us)
    throw usage_error("`soma health --replay FROM..TO`: FROM (" + utc(w.from_us)
                      + ") is after TO (" + utc(*w.to_us) + "); give the earlier moment first");
  return w;
}

std::int64_t parse_every(const std::string& text) {
  double s = 0;
  try {
    s = health::seconds_of(text);
  } catch (const health::rules_error&) {
    s = -1;
  }
  if (!(s > 0) || !(s < 1e9))
    throw usage_error("`soma health --every S` takes a step over 0: 500ms, 1s, 2m, 1h or a bare "
                      "number of seconds, not '" + text + "'");
  return health::clamp_us(s * 1e6);
}

int show_replay(const store& s, const health::rulebook& book, const invocation& inv,
                std::ostream& out, std::ostream& err) {
  health::replay_options o;
  o.from_us = *inv.replay_from_us;
  // No TO: the newest write, the moment a judgement now is of.
  o.to_us = inv.replay_to_us ? *inv.replay_to_us : health::judge(s, book).now_us;
  if (!inv.replay_to_us && o.to_us == 0)
    throw usage_error("`soma health --replay FROM..`: the store holds no reading or forward yet, "
                      "so there is no newest write to replay up to; give a TO");
  if (o.from_us > o.to_us)
    throw usage_error("`soma health --replay FROM..`: FROM (" + utc(o.from_us)
                      + ") is after the newest write (" + utc(o.to_us)
                      + "); give an earlier FROM, or a TO");
  o.every_us = inv.every_us;
  if (!inv.run.empty())
    o.run = inv.run;
  auto a = replayed_by(s, book, o);
  std::size_t on = book.enabled().size();
  err << "soma: opinions, not facts: " << on << " rules replayed over " << a.steps
      << " steps from " << utc(a.from_us) << " to " << utc(a.last_us) << " (every "
      << seconds(a.every_us) << "): ";
  if (inv.compare_rules.empty()) {
    print_episodes(a, inv, out);
    err << episodes(a.episodes.size()) << " (" << fired(a) << " fired)\n";
    return inv.fail_on_firing && fired(a) > 0 ? exit_firing : exit_ok;
  }
  auto other = health::rulebook::shipped();
  try {
    other.read_file(inv.compare_rules);
  } catch (const health::rules_error& e) {
    throw usage_error(std::string{e.what()} + " (docs/health.md says how a rules file goes)");
  }
  auto b = replayed_by(s, other, o);
  auto ds = health::compare(a, b);
  print_differences(ds, inv, out);
  err << "A (" << (inv.rules.empty() ? std::string{"the shipped rules"} : inv.rules) << ") held "
      << episodes(a.episodes.size()) << " (" << fired(a) << " fired), B (" << inv.compare_rules
      << ") " << b.episodes.size() << " (" << fired(b) << " fired): " << ds.size() << " differ\n";
  return inv.fail_on_firing && fired(a) + fired(b) > 0 ? exit_firing : exit_ok;
}

} // namespace soma::cli
