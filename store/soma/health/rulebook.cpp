#include "soma/health/rulebook.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "soma/health/rules.hpp"

namespace soma::health {

namespace {

std::string names_of(const std::vector<setting>& all) {
  std::string out;
  for (auto& s : all)
    out += (out.empty() ? "" : ", ") + s.name;
  return out;
}

std::string_view trim(std::string_view x) {
  while (!x.empty() && (x.front() == ' ' || x.front() == '\t'))
    x.remove_prefix(1);
  while (!x.empty() && (x.back() == ' ' || x.back() == '\t' || x.back() == '\r'))
    x.remove_suffix(1);
  return x;
}

bool is_name(std::string_view x) {
  return !x.empty() && std::all_of(x.begin(), x.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  });
}

std::optional<double> plain_number(std::string_view x) {
  if (x.size() > 1 && x.front() == '+' && x[1] != '-')
    x.remove_prefix(1); // from_chars takes no '+'
  double v = 0;
  auto [end, ec] = std::from_chars(x.data(), x.data() + x.size(), v);
  if (ec != std::errc{} || end != x.data() + x.size() || !std::isfinite(v))
    return std::nullopt;
  return v;
}

} // namespace

double settings::operator[](std::string_view name) const {
  for (auto& s : all_)
    if (s.name == name)
      return s.value;
  throw std::out_of_range("a rule asked for its setting '" + std::string{name}
                          + "', which it does not have; it has: " + names_of(all_));
}

std::vector<const rulebook::entry*> rulebook::enabled() const {
  std::vector<const entry*> on;
  for (auto& e : rules_)
    if (e.settings.enabled())
      on.push_back(&e);
  return on;
}

needs rulebook::needs() const {
  health::needs need;
  for (auto* e : enabled()) {
    auto n = e->rule->needs(e->settings);
    need.forwards = std::max(need.forwards, n.forwards);
    need.facts = std::max(need.facts, n.facts);
    need.trials |= n.trials;
  }
  return need;
}

bool settings::set(std::string_view name, double value) {
  for (auto& s : all_)
    if (s.name == name) {
      s.value = value;
      return true;
    }
  return false;
}

double seconds_of(std::string_view text) {
  struct unit {
    std::string_view suffix;
    double scale;
  };
  static constexpr unit units[] = {{"ms", 1e-3}, {"s", 1}, {"m", 60}, {"h", 3600}};
  for (auto& u : units)
    if (text.size() > u.suffix.size() && text.ends_with(u.suffix)) {
      auto n = text.substr(0, text.size() - u.suffix.size());
      if (auto v = plain_number(n); v && (n.back() >= '0' && n.back() <= '9'))
        return *v * u.scale;
    }
  if (auto v = plain_number(text))
    return *v;
  throw rules_error("'" + std::string{text}
                    + "' is not a duration; write seconds (30), or a number with ms, s, m or h "
                      "(500ms, 30s, 2m, 1h)");
}

rulebook rulebook::shipped() {
  rulebook out;
  for (auto make : {quiet_machine, busy_machine, memory_machine, not_worth_sending, slow_node,
                    broke_forwards, stalled_run, non_finite, stale_claim, silent_store})
    out.add(make());
  return out;
}

void rulebook::add(std::unique_ptr<health::rule> r) {
  if (!r)
    throw rules_error("a rulebook was given no rule (a null pointer)");
  auto name = r->name();
  if (!is_name(name))
    throw rules_error("a rule's name is lower case letters, digits and '_', not '" + name + "'");
  for (auto& e : rules_)
    if (e.rule->name() == name)
      throw rules_error("the rulebook has a rule named '" + name + "' already");
  health::settings s{r->defaults()};
  for (auto* needed : {"over", "for", "enabled"}) {
    bool has = false;
    for (auto& x : s.all())
      has |= x.name == needed;
    if (!has)
      throw rules_error("rule '" + name + "' has no setting '" + needed
                        + "'; every rule has over, for and enabled");
  }
  rules_.push_back(entry{std::move(r), std::move(s)});
}

rulebook::entry& rulebook::find(std::string_view name) {
  for (auto& e : rules_)
    if (e.rule->name() == name)
      return e;
  std::string known;
  for (auto& e : rules_)
    known += (known.empty() ? "" : ", ") + e.rule->name();
  throw rules_error("there is no rule '" + std::string{name} + "'; the rules are: " + known);
}

const rulebook::entry& rulebook::at(std::string_view name) const {
  return const_cast<rulebook*>(this)->find(name);
}

void rulebook::set(std::string_view rule, std::string_view setting, double value) {
  auto& e = find(rule);
  if (!std::isfinite(value))
    throw rules_error("rule '" + std::string{rule} + "' setting '" + std::string{setting}
                      + "' must be a finite number");
  auto out_of_range = [&](const std::string& is) {
    return rules_error("rule '" + std::string{rule} + "' setting '" + std::string{setting} + "' is "
                       + is + ", not " + number(value));
  };
  if (setting == "for" && !(value >= 0 && value <= 1e9))
    throw out_of_range("a duration of 0 or more seconds, at most 1e9");
  if (setting == "enabled" && value != 0 && value != 1)
    throw out_of_range("true or false (1 or 0)");
  if (setting == "over" && !(value >= -1e15 && value <= 1e15))
    throw out_of_range("a number from -1e15 to 1e15");
  if (setting != "for" && setting != "enabled" && setting != "over" && !(value >= 0 && value <= 1e9))
    throw out_of_range("a number from 0 to 1e9");
  if (!e.settings.set(setting, value))
    throw rules_error("rule '" + std::string{rule} + "' has no setting '" + std::string{setting}
                      + "'; its settings are: " + names_of(e.settings.all()));
}

void rulebook::read(std::string_view text, std::string_view file) {
  if (text.starts_with("\xEF\xBB\xBF"))
    text.remove_prefix(3); // a byte order mark some editors write
  std::string section;
  std::size_t line_no = 0;
  while (!text.empty()) {
    auto nl = text.find('\n');
    auto line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
    ++line_no;
    auto at = std::string{file} + ":" + std::to_string(line_no) + ": ";
    if (auto hash = line.find('#'); hash != std::string_view::npos)
      line = line.substr(0, hash);
    line = trim(line);
    if (line.empty())
      continue;
    if (line.front() == '[') {
      if (line.back() != ']')
        throw rules_error(at + "a section is a rule's name in brackets, such as [quiet_machine]");
      section = std::string{trim(line.substr(1, line.size() - 2))};
      try {
        find(section);
      } catch (const rules_error& e) {
        throw rules_error(at + e.what());
      }
      continue;
    }
    auto eq = line.find('=');
    if (eq == std::string_view::npos)
      throw rules_error(at + "'" + std::string{line}
                        + "' is neither a [rule] nor a setting; write name = value");
    if (section.empty())
      throw rules_error(at + "a setting before any [rule]: name the rule it is for first");
    auto name = trim(line.substr(0, eq));
    auto value = trim(line.substr(eq + 1));
    try {
      double v = 0;
      if (name == "for")
        v = seconds_of(value);
      else if (name == "enabled") {
        if (value != "true" && value != "false" && value != "1" && value != "0")
          throw rules_error("enabled is true or false, not '" + std::string{value} + "'");
        v = value == "true" || value == "1";
      } else if (auto n = plain_number(value))
        v = *n;
      else
        throw rules_error("'" + std::string{value} + "' is not a number (for " + std::string{name}
                          + ")");
      set(section, name, v);
    } catch (const rules_error& e) {
      throw rules_error(at + e.what());
    }
  }
}

void rulebook::read_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw rules_error("'" + path + "' is a directory, not a rules file");
  std::ifstream in{path, std::ios::binary};
  if (!in)
    throw rules_error("cannot read the rules file '" + path + "': it does not exist or cannot be opened");
  // A rules file is a few lines; a big one is not one.
  constexpr std::size_t most = 1 << 20;
  std::string buf(most + 1, '\0');
  in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
  if (in.bad())
    throw rules_error("cannot read the rules file '" + path + "': reading it failed part-way");
  if (static_cast<std::size_t>(in.gcount()) > most)
    throw rules_error("the rules file '" + path + "' is over 1 MiB; a rules file is a few lines");
  buf.resize(static_cast<std::size_t>(in.gcount()));
  read(buf, path);
}

} // namespace soma::health
