// The rules about machines, judged from their readings: quiet_machine,
// busy_machine, memory_machine.

#include "soma/health/rules.hpp"

namespace soma::health {

namespace {

std::string seconds(double s) { return number(s) + " s"; }

// The interval a machine reports at: what it said, else the gap between its
// two newest readings (writers older than the every_us field).
std::optional<std::int64_t> interval_of(const std::vector<reading>& newest_first) {
  if (newest_first.empty())
    return std::nullopt;
  // A day at most: anything longer is no reporting interval (a writer's
  // number, which judging must survive).
  constexpr std::int64_t day_us = 86'400'000'000;
  if (newest_first[0].every_us > 0 && newest_first[0].every_us <= day_us)
    return newest_first[0].every_us;
  if (newest_first.size() >= 2 && newest_first[0].when_us > newest_first[1].when_us
      && sub_us(newest_first[0].when_us, newest_first[1].when_us) <= day_us)
    return newest_first[0].when_us - newest_first[1].when_us;
  return std::nullopt;
}

class quiet_machine_rule : public rule {
public:
  std::string name() const override { return "quiet_machine"; }
  std::string looks_at() const override { return "readings"; }
  std::string condition() const override {
    return "a machine's latest reading is more than `over` times its reporting interval behind "
           "the newest reading of any machine (quiet_s, writer against writer)";
  }
  std::vector<setting> defaults() const override {
    return {{"over", 5, "times the machine's reporting interval"},
            {"for", 5, "seconds quiet past that before it fires"},
            {"enabled", 1, ""}};
  }
  health::changes_with changes(const settings&) const override { return changes_with::readings; }
  bool more_readings(const std::vector<reading>& newest_first, const settings&) const override {
    return newest_first.size() < 2 && newest_first[0].every_us <= 0;
  }
  void judge(const evidence& e, const settings& s, std::vector<opinion>& out) const override {
    for (auto& [id, rs] : e.machines) {
      auto every = interval_of(rs);
      if (!every)
        continue; // one reading of an old writer: no interval to hold it to
      auto threshold_us = clamp_us(s.over() * static_cast<double>(*every));
      auto quiet_us = sub_us(e.newest_reading_us, rs[0].when_us);
      if (quiet_us <= threshold_us)
        continue;
      opinion o;
      o.rule = name();
      o.kind = "machine";
      o.subject = "machine " + id;
      o.measure = "quiet_s";
      o.value = static_cast<double>(quiet_us) / 1e6;
      o.threshold = static_cast<double>(threshold_us) / 1e6;
      o.threshold_is = number(s.over()) + " x its reporting interval "
                       + seconds(static_cast<double>(*every) / 1e6)
                       + (rs[0].every_us > 0 ? "" : " (the gap between its last two readings)");
      o.since_us = add_us(rs[0].when_us, threshold_us);
      hold(out, std::move(o), s, e.newest_reading_us);
    }
  }
};

// A fraction over `over` in every reading from some reading on: busy and
// memory. Pending until the machine's own clock says it has lasted `for`.
class streak_rule : public rule {
public:
  using field = double reading::*;
  streak_rule(std::string name, std::string measure, field f, std::string what)
    : name_(std::move(name)), measure_(std::move(measure)), field_(f), what_(std::move(what)) {}

  std::string name() const override { return name_; }
  std::string looks_at() const override { return "readings"; }
  std::string condition() const override {
    return "a machine's " + measure_ + " (" + what_ + ") is over `over` in its latest reading "
           "and in every reading since the condition began";
  }
  std::vector<setting> defaults() const override {
    return {{"over", 0.9, "a fraction, 0 to 1"},
            {"for", 30, "seconds by the machine's own clock"},
            {"enabled", 1, ""}};
  }
  health::changes_with changes(const settings&) const override { return changes_with::readings; }
  bool more_readings(const std::vector<reading>& newest_first, const settings& s) const override {
    return newest_first.back().*field_ > s.over();
  }
  void judge(const evidence& e, const settings& s, std::vector<opinion>& out) const override {
    for (auto& [id, rs] : e.machines) {
      if (!(rs[0].*field_ > s.over()))
        continue;
      std::size_t first = 0; // the oldest reading of the streak
      while (first + 1 < rs.size() && rs[first + 1].*field_ > s.over())
        ++first;
      opinion o;
      o.rule = name_;
      o.kind = "machine";
      o.subject = "machine " + id;
      o.measure = measure_;
      o.value = rs[0].*field_;
      o.threshold = s.over();
      o.since_us = rs[first].when_us;
      hold(out, std::move(o), s, rs[0].when_us);
    }
  }

private:
  std::string name_, measure_;
  field field_;
  std::string what_;
};

} // namespace

std::unique_ptr<rule> quiet_machine() { return std::make_unique<quiet_machine_rule>(); }

std::unique_ptr<rule> busy_machine() {
  return std::make_unique<streak_rule>("busy_machine", "busy", &reading::busy,
                                       "the CPU busy fraction over its last interval");
}

std::unique_ptr<rule> memory_machine() {
  return std::make_unique<streak_rule>("memory_machine", "memory", &reading::memory,
                                       "the fraction of its memory in use");
}

} // namespace soma::health
