#include "live_view.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <ctime>
#include <utility>

#include "table.hpp"

#include "soma/health/judge.hpp"
#include "soma/store/keys.hpp"

namespace soma::cli {

namespace {

constexpr std::size_t node_forwards = 100; // the slowest nodes are of the last 100 forwards
constexpr std::size_t max_machines = 256; // machines a view names, at most
constexpr std::size_t page_size = 50'000;  // records a read asks for at once
constexpr std::size_t gap_forwards = 32;   // forwards the recent mean gap is of
constexpr std::int64_t kept_seconds = 60;  // per-second counts kept, for the rate

// Whole seconds read off records' clocks, for a person: 42 s, 4m 12s, 2h
// 05m, 3d 04h (a time's duration is table.hpp's duration).
std::string seconds(std::int64_t s) {
  char buf[32];
  s = std::max<std::int64_t>(s, 0);
  if (s < 60)
    std::snprintf(buf, sizeof buf, "%lld s", static_cast<long long>(s));
  else if (s < 3600)
    std::snprintf(buf, sizeof buf, "%lldm %02llds", static_cast<long long>(s / 60),
                  static_cast<long long>(s % 60));
  else if (s < 86400)
    std::snprintf(buf, sizeof buf, "%lldh %02lldm", static_cast<long long>(s / 3600),
                  static_cast<long long>(s / 60 % 60));
  else
    std::snprintf(buf, sizeof buf, "%lldd %02lldh", static_cast<long long>(s / 86400),
                  static_cast<long long>(s / 3600 % 24));
  return buf;
}

// A moment in local time: 12:01:03 today, else with its date.
std::string clock_time(std::int64_t unix_s, std::int64_t now) {
  auto t = static_cast<std::time_t>(unix_s), n = static_cast<std::time_t>(now);
  std::tm at{}, today{};
  localtime_r(&t, &at);
  localtime_r(&n, &today);
  char buf[32];
  bool same_day = at.tm_year == today.tm_year && at.tm_yday == today.tm_yday;
  std::strftime(buf, sizeof buf, same_day ? "%H:%M:%S" : "%Y-%m-%d %H:%M:%S", &at);
  return buf;
}

// Cuts `l` to `width` columns, a whole character at a time.
void cut(std::string& l, std::size_t width) {
  while (text_columns(l) > width && !l.empty()) {
    while (!l.empty() && (static_cast<unsigned char>(l.back()) & 0xC0) == 0x80)
      l.pop_back();
    if (!l.empty())
      l.pop_back();
  }
}

// Parts side by side, three spaces apart, or fewer when that is too wide.
std::string spaced(const std::vector<std::string>& parts, std::size_t width) {
  std::string line;
  for (std::string gap : {"   ", "  ", " "}) {
    line.clear();
    for (std::size_t i = 0; i < parts.size(); ++i)
      line += (i ? gap : "") + parts[i];
    if (text_columns(line) <= width)
      break;
  }
  return line;
}

// The first of `lines` that fits `width`, else the last.
std::string fitting(const std::vector<std::string>& lines, std::size_t width) {
  for (auto& l : lines)
    if (text_columns(l) <= width)
      return l;
  return lines.back();
}

std::string count(const char* what, std::uint64_t n) {
  return std::string{what} + " " + std::to_string(n);
}

std::string rate_text(double r) {
  char buf[32];
  std::snprintf(buf, sizeof buf, r >= 100 ? "%.0f" : "%.3g", r);
  return buf;
}

// The firing opinions of the shipped rules about `run`: what `soma health
// RUN` says of it, the run's forwards, nodes, hosts and trial, never a
// machine that did not touch it.
std::vector<health::opinion> firing_about(const store& s, const std::string& run) {
  auto j = health::judge(s, health::rulebook::shipped(), {.run = run});
  std::vector<health::opinion> out;
  for (auto& op : j.opinions)
    if (op.state == health::status::firing)
      out.push_back(op);
  return out;
}

// The node facts of a forward (what node_tally counts), the rest dropped.
std::vector<fact> node_facts(const std::vector<fact>& told) {
  std::vector<fact> out;
  for (auto& f : told)
    if (f.name == "ran" || f.name == "failed" || f.name == "recalled")
      out.push_back(f);
  return out;
}

} // namespace

std::size_t text_columns(const std::string& s) {
  return static_cast<std::size_t>(std::count_if(
    s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

run_follower::run_follower(std::string run, std::string fact, std::int64_t quiet_after_s)
  : run_(std::move(run)), fact_(std::move(fact)), quiet_after_s_(quiet_after_s) {
  key_ = fact_.find('.') == std::string::npos ? fact_ + ".value" : fact_;
  auto dot = key_.find('.');
  name_ = key_.substr(0, dot);
  field_ = key_.substr(dot + 1);
}

void run_follower::reset() {
  *this = run_follower{std::move(run_), std::move(fact_), quiet_after_s_};
}

const std::vector<fact>& run_follower::facts_of(const store& s, std::uint64_t n) {
  auto it = fetched_.find(n);
  if (it == fetched_.end())
    it = fetched_.emplace(n, facts(s, run_, n)).first;
  return it->second;
}

std::optional<double> run_follower::value_of(const store& s, const record& r) {
  std::optional<double> x;
  if (*summarised_) {
    for (auto& f : r.summary)
      if (f.key == key_)
        x = read_number(f.value);
    return x;
  }
  for (auto& f : facts_of(s, r.forward)) // the last telling counts, as curve() says
    if (f.name == name_ && f.has(field_))
      x = read_number(f[field_]);
  return x;
}

void run_follower::settle(std::uint64_t n, outcome state, std::optional<double> value) {
  (state == outcome::broke ? broke_ : ok_) += 1;
  if (!value)
    return;
  ++told_;
  values_.add(n, *value);
  if (!last_ || n > last_->first)
    last_ = std::pair{n, *value};
}

void run_follower::take(const store& s, const record& r, std::uint64_t total) {
  if (r.forward < next_ && pending_.count(r.forward) == 0)
    return; // settled when read before, and counted then
  if (r.forward >= next_) { // new: when it began counts once
    next_ = r.forward + 1;
    if (r.forward == 0)
      first_when_ = r.when_s();
    last_when_ = std::max(last_when_, r.when_s());
    ++per_second_[r.when_s()];
    if (per_second_.size() > 2 * kept_seconds) // catching up on a long run
      per_second_.erase(per_second_.begin(), per_second_.lower_bound(last_when_ - kept_seconds));
    recent_whens_.push_back(r.when_s());
    if (recent_whens_.size() > gap_forwards)
      recent_whens_.pop_front();
  }
  // The latest forward may still be told facts, an open one may end: both
  // are read again next time; any other is as it stays.
  bool settled = r.state != outcome::open && r.forward + 1 < total;
  if (!settled) {
    pending_[r.forward] = {r.state, value_of(s, r)};
    return;
  }
  pending_.erase(r.forward);
  // Fetching values, a forward not reached yet gets its value when it is.
  bool reached = *summarised_ || r.forward < valued_;
  settle(r.forward, r.state, reached ? value_of(s, r) : std::nullopt);
}

void run_follower::read_values(const store& s) {
  for (std::size_t fetched = 0; valued_ < next_ && fetched < fetch_budget; ++valued_) {
    if (pending_.count(valued_))
      continue; // its value is read when it settles
    std::optional<double> x;
    for (auto& f : facts_of(s, valued_))
      if (f.name == name_ && f.has(field_))
        x = read_number(f[field_]);
    ++fetched;
    if (x) {
      ++told_;
      values_.add(valued_, *x);
      if (!last_ || valued_ > last_->first)
        last_ = std::pair{valued_, *x};
    }
  }
}

void run_follower::read_nodes(const store& s, std::uint64_t total) {
  auto start = total > node_forwards ? total - node_forwards : 0;
  while (!node_facts_.empty() && node_facts_.front().first < start)
    node_facts_.pop_front();
  for (auto& [n, told] : node_facts_)
    if (pending_.count(n))
      told = node_facts(facts_of(s, n));
  auto from = node_facts_.empty() ? start : std::max(start, node_facts_.back().first + 1);
  for (auto n = from; n < total; ++n) {
    auto& told = facts_of(s, n);
    node_facts_.emplace_back(n, node_facts(told));
    // Which machine each host is, by the machine facts its wire brought
    // (a run goes to a fleet of bounded size; the latest join wins).
    for (auto& f : told)
      if (f.name == "machine" && f.has("id") && f.has("host")) {
        std::string host{f["host"].text()};
        if (machines_.count(host) || machines_.size() < max_machines)
          machines_.insert_or_assign(std::move(host), std::string{f["id"].text()});
      }
  }
}

std::optional<std::uint64_t> run_follower::read_new(const store& s) {
  fetched_.clear();
  forward_page page;
  try {
    // From the latest read (a recorder may still add to it) on.
    page = forwards(s, run_, next_ > 0 ? next_ - 1 : 0, page_size);
    if (page.total < next_) { // shorter than it was: recorded again
      reset();
      page = forwards(s, run_, 0, page_size);
    }
  } catch (const no_run_error&) {
    reset();
    return std::nullopt; // not recorded yet: the view waits for it (damage is an error)
  }
  if (!summarised_)
    summarised_ = curve_costs(s, run_, fact_) == curve_cost::scan;
  std::vector<std::uint64_t> open;
  for (auto& [n, p] : pending_)
    if (n + 1 < next_)
      open.push_back(n);
  for (auto n : open) // a seek each: forwards still open when last read
    for (auto& r : forwards(s, run_, n, 1).records)
      take(s, r, page.total);
  auto total = page.total;
  while (true) {
    total = std::max(total, page.total);
    for (auto& r : page.records)
      take(s, r, total);
    if (page.records.size() < page_size)
      break;
    page = forwards(s, run_, next_, page_size);
  }
  if (!*summarised_)
    read_values(s);
  read_nodes(s, next_);
  return total;
}

void run_follower::count_into(view& v) const {
  v.ok = ok_;
  v.broke = broke_;
  v.values = values_;
  v.told = told_;
  auto last = last_;
  for (auto& [n, p] : pending_) {
    (p.state == outcome::ok ? v.ok : p.state == outcome::broke ? v.broke : v.open) += 1;
    if (p.value) {
      ++v.told;
      v.values.add(n, *p.value);
      if (!last || n > last->first)
        last = std::pair{n, *p.value};
    }
  }
  if (last)
    v.last = last->second;
  v.valued = *summarised_ ? v.forwards : std::min(valued_, v.forwards);
}

void run_follower::time_into(view& v, std::int64_t now) {
  // The rate over the last whole seconds: a forward that began in second k
  // began in [k, k+1), so these counts are exact whatever the frame's time.
  auto anchor = std::max(now, last_when_); // a recorder's clock ahead of ours
  while (!per_second_.empty() && per_second_.begin()->first < anchor - kept_seconds)
    per_second_.erase(per_second_.begin());
  std::uint64_t recent = 0;
  for (auto it = per_second_.lower_bound(anchor - rate_seconds);
       it != per_second_.end() && it->first < anchor; ++it)
    recent += it->second;
  v.rate = static_cast<double>(recent) / static_cast<double>(rate_seconds);
  // A run that ended lasted from its first forward to its last: its clock
  // stops with it.
  bool ended = v.status == run_status::finished || v.status == run_status::died;
  if (first_when_)
    v.elapsed_s = std::max<std::int64_t>(0, (ended ? last_when_ : now) - *first_when_);
  // Quiet: at least this long since the latest forward began (whole seconds
  // both, so one less than their difference), past 3 times the recent mean gap.
  v.last_when = last_when_;
  v.now = now;
  if (v.forwards > 0) {
    std::int64_t threshold = quiet_after_s_;
    if (recent_whens_.size() >= 2) {
      auto [lo, hi] = std::minmax_element(recent_whens_.begin(), recent_whens_.end());
      auto gap = static_cast<double>(*hi - *lo) / static_cast<double>(recent_whens_.size() - 1);
      threshold = std::max<std::int64_t>(threshold, static_cast<std::int64_t>(3 * gap + 0.999));
    }
    auto quiet = now - last_when_ - 1;
    if (quiet >= threshold)
      v.quiet_s = quiet;
  }
}

std::vector<node_row> run_follower::slowest() const {
  detail::node_tally tally;
  for (auto& [n, told] : node_facts_)
    tally.add(told);
  auto rows = tally.rows();
  std::stable_sort(rows.begin(), rows.end(),
                   [](const node_row& a, const node_row& b) { return a.mean_us > b.mean_us; });
  if (rows.size() > 5)
    rows.resize(5);
  return rows;
}

view run_follower::read(const store& s, std::int64_t now) {
  view v;
  v.run = run_;
  v.fact = fact_;
  auto total = read_new(s);
  if (!total)
    return v;
  v.found = true;
  // Where the run stands (one read of its metadata): a run its recorder
  // closed, or whose writer is gone, says so instead of going quiet.
  auto row = run_summary(s, run_);
  v.status = row.status;
  v.how = row.how;
  v.executions = std::move(row.executions);
  v.forwards = std::max(*total, next_);
  count_into(v);
  time_into(v, now);
  v.slowest = slowest();
  return v;
}

std::vector<std::pair<std::string, machine_state>>
machine_states(const store& s, const std::map<std::string, std::string>& machines,
               std::int64_t now_us) {
  std::vector<std::pair<std::string, machine_state>> out;
  if (machines.empty())
    return out;
  auto latest = standing(s);
  quietness quiet{latest, now_us};
  for (auto& [host, id] : machines)
    if (auto state = quiet.state_of(latest, id))
      out.emplace_back(host + " " + id, *state);
  return out;
}

std::vector<std::string> opinion_lines(const store& s, const std::string& run) {
  std::vector<std::string> out;
  // An opinion is judged over the whole store: damage elsewhere (another
  // run, a machine's reading) says so here, and the view of this run goes on.
  try {
    for (auto& op : firing_about(s, run))
      out.push_back(op.rule + " " + op.subject + ": " + op.measure + " "
                    + health::number(op.value) + " over " + health::number(op.threshold));
  } catch (const store_error& e) {
    out.push_back(e.trouble() == store_trouble::damaged
                    ? "cannot be judged: the store is damaged (`soma check` lists where)"
                    : std::string{"cannot be judged: "} + e.what());
  }
  return out;
}

namespace {

// Each part of the view, in the order shown, with how much it matters
// (0 most) and how few of its lines it can do with before it goes.
struct part {
  int rank;
  std::vector<std::string> lines;
  std::size_t fewest = 1;
  std::vector<std::string> smaller = {}; // what it shrinks to, when not a line less
};

// Where the run stands: its counts, its rate and time, and a line when it
// ended or went quiet.
void add_standing(const view& v, std::size_t width, std::vector<part>& parts) {
  parts.push_back({0, {spaced({count("forwards", v.forwards), count("ok", v.ok),
                               count("broke", v.broke), count("open", v.open)}, width)}});
  std::vector<std::string> timing{"rate " + rate_text(v.rate) + "/s (last "
                                  + std::to_string(rate_seconds) + " s)"};
  if (v.elapsed_s)
    timing.push_back("elapsed " + seconds(*v.elapsed_s));
  parts.push_back({1, {spaced(timing, width)}});
  if (v.status == run_status::finished || v.status == run_status::died) {
    parts.push_back({1, {fitting({std::string{to_string(v.status)} + ": " + v.how,
                                  std::string{to_string(v.status)}}, width)}});
  } else if (v.quiet_s) {
    auto quiet = "no forward for " + seconds(*v.quiet_s);
    auto at = clock_time(v.last_when, v.now);
    parts.push_back({1, {fitting({quiet + " (the last at " + at + ")", quiet + " (last " + at + ")",
                                  quiet}, width)}});
  }
}

// A run that more than one execution wrote says so, and where the latest
// began: its forwards before that are another program's.
void add_executions(const view& v, std::size_t width, std::vector<part>& parts) {
  if (v.executions.size() < 2)
    return;
  auto& e = v.executions.back();
  auto n = std::to_string(v.executions.size());
  std::string at = "forward " + std::to_string(e.forward);
  if (e.began_us)
    at += ", " + clock_time(detail::seconds_of(e.began_us), v.now);
  std::string who = e.host.empty() ? "" : ", " + e.host + (e.pid ? " pid " + std::to_string(e.pid) : "");
  parts.push_back({1, {fitting({"executions: " + n + "; the latest began at " + at + who,
                                "executions: " + n + "; the latest from " + at,
                                "executions: " + n},
                               width)}});
}

// Opinions in a line of their own, said to be opinions: the counts above
// are the record, this is the health rules' judgement of it.
part opinions_of(const view& v) {
  std::string judged = "opinions (health rules, firing): ";
  if (v.opinions.empty())
    judged += "none";
  for (std::size_t i = 0; i < v.opinions.size(); ++i)
    judged += (i ? "; " : "") + v.opinions[i];
  return {4, {judged}};
}

// The run's machines, a quiet one marked as a badge: whether each still
// reports is an opinion too (3 of its reporting intervals).
part machines_of(const view& v, std::size_t width) {
  std::vector<std::string> each;
  for (auto& [name, state] : v.machines)
    each.push_back(state == machine_state::quiet ? name + " [QUIET]" : name + " reporting");
  std::string all = "machines: ", few = "machines: ";
  std::size_t quiet = 0;
  for (std::size_t i = 0; i < each.size(); ++i)
    all += (i ? "   " : "") + each[i];
  for (auto& [name, state] : v.machines)
    quiet += state == machine_state::quiet;
  few += std::to_string(v.machines.size() - quiet) + " reporting, " + std::to_string(quiet)
         + (quiet ? " [QUIET]" : " quiet");
  return {4, {fitting({all, few}, width)}};
}

// The fact: its last value and range, and the whole run as a sparkline.
void add_values(const view& v, std::size_t width, std::vector<part>& parts) {
  if (!v.last) {
    parts.push_back({2, {v.fact + ": not told yet"}});
    return;
  }
  char buf[256];
  auto [lo, hi] = v.values.range().value_or(std::pair{*v.last, *v.last});
  std::string read_so_far;
  if (v.valued < v.forwards)
    read_so_far = "; read " + std::to_string(v.valued) + " of " + std::to_string(v.forwards)
                  + " so far";
  std::vector<std::string> told;
  std::snprintf(buf, sizeof buf, "%s   last %.6g   (told by %llu forwards: %.4g to %.4g",
                v.fact.c_str(), *v.last, static_cast<unsigned long long>(v.told), lo, hi);
  told.push_back(buf + read_so_far + ")");
  std::snprintf(buf, sizeof buf, "%s  last %.6g  (%llu told: %.4g to %.4g", v.fact.c_str(),
                *v.last, static_cast<unsigned long long>(v.told), lo, hi);
  told.push_back(buf + read_so_far + ")");
  std::snprintf(buf, sizeof buf, "%s last %.6g (%.4g to %.4g)", v.fact.c_str(), *v.last, lo, hi);
  told.push_back(buf);
  parts.push_back({2, {fitting(told, width)}});
  // Two values a character: the whole run, each column its mean.
  auto room = 2 * (width > 2 ? width - 2 : width);
  auto cols = v.values.fitted(room, v.forwards);
  if (!cols.empty() && 2 * cols.size() <= room) { // a short run: each forward as wide as fits
    std::vector<value_columns::column> wide;
    for (auto& c : cols)
      wide.insert(wide.end(), room / cols.size(), c);
    cols = std::move(wide);
  }
  parts.push_back({3, braille(cols, lo, hi, 2), 1, braille(cols, lo, hi, 1)});
}

// The nodes' table: its name column takes what the numbers leave.
part slowest_nodes(const view& v, std::size_t width) {
  char buf[256];
  bool narrow = width < 2 + 8 + 27;
  auto others = std::size_t{narrow ? 12u : 29u}; // the columns beside the name
  auto name_width = static_cast<int>(std::max<std::size_t>(8, width > others ? width - others : 0));
  auto row = [&](const std::string& name, const std::string& mean, const std::string& ran,
                 const std::string& failed) {
    // The mean right-aligned in 9 columns by hand: printf pads bytes, and
    // a duration's "µ" is two of them.
    auto columns = text_columns(mean);
    auto padded = std::string(columns < 9 ? 9 - columns : 0, ' ') + mean;
    if (narrow)
      std::snprintf(buf, sizeof buf, "  %-*.*s %s", name_width, name_width, name.c_str(),
                    padded.c_str());
    else
      std::snprintf(buf, sizeof buf, "  %-*.*s %s %7s %7s", name_width, name_width,
                    name.c_str(), padded.c_str(), ran.c_str(), failed.c_str());
    return std::string{buf};
  };
  part nodes{5, {}, 2};
  std::string title = "slowest nodes (last " + std::to_string(node_forwards) + " forwards)";
  auto head = row("", "mean", "ran", "failed");
  // The title over the name column, where it fits there.
  head = title.size() <= static_cast<std::size_t>(name_width) + 2
           ? title + head.substr(title.size())
           : title;
  nodes.lines.push_back(head);
  for (auto& n : v.slowest)
    nodes.lines.push_back(row(n.node, cli::duration(n.mean_us), std::to_string(n.ran),
                              std::to_string(n.failed)));
  return nodes;
}

// Too tall: the least important part gives up a line, or goes.
void shrink(std::vector<part>& parts, std::size_t height) {
  auto lines_in = [&] {
    std::size_t n = 0;
    for (auto& p : parts)
      n += p.lines.size();
    return n;
  };
  while (lines_in() > height && !parts.empty()) {
    auto least = parts.begin(); // the last of the least important
    for (auto p = parts.begin(); p != parts.end(); ++p)
      if (p->rank >= least->rank)
        least = p;
    if (!least->smaller.empty())
      least->lines = std::exchange(least->smaller, {});
    else if (least->lines.size() > least->fewest)
      least->lines.pop_back();
    else
      parts.erase(least);
  }
}

} // namespace

std::vector<std::string> render(const view& v, std::size_t width, std::size_t height) {
  std::vector<part> parts;
  parts.push_back({0, {"soma live: run " + v.run + "   (q quits)"}});
  if (!v.found) {
    parts.push_back({0, {"waiting for run '" + v.run + "' to be recorded..."}});
  } else {
    add_standing(v, width, parts);
    add_executions(v, width, parts);
    if (!v.machines.empty())
      parts.push_back(machines_of(v, width));
    parts.push_back(opinions_of(v));
    add_values(v, width, parts);
    parts.push_back({9, {""}});
    if (!v.slowest.empty())
      parts.push_back(slowest_nodes(v, width));
  }
  shrink(parts, height);
  std::vector<std::string> lines;
  for (auto& p : parts)
    for (auto& l : p.lines) {
      lines.push_back(l);
      cut(lines.back(), width);
      while (!lines.back().empty() && lines.back().back() == ' ') // a sparkline's blank end
        lines.back().pop_back();
    }
  return lines;
}

} // namespace soma::cli
