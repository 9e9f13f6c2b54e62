// The rule about trials: stale_claim, judged from trials and the claimants'
// readings.

#include <cmath>

#include "soma/health/rules.hpp"

namespace soma::health {

namespace {

class stale_claim_rule : public rule {
public:
  std::string name() const override { return "stale_claim"; }
  std::string looks_at() const override { return "trials, readings"; }
  std::string condition() const override {
    return "a claimed trial's claimant has written no reading for over `over` seconds behind the "
           "newest reading of any machine (the rule `soma reclaim --quiet-over` hands it back by)";
  }
  std::vector<setting> defaults() const override {
    return {{"over", 30, "seconds its claimant is quiet"}, {"for", 0, "seconds"}, {"enabled", 1, ""}};
  }
  health::needs needs(const settings&) const override { return {0, false, true}; }
  void judge(const evidence& e, const settings& s, std::vector<opinion>& out) const override {
    auto over_us = clamp_us(s.over() * 1e6);
    for (auto& [study, trials] : e.trials)
      for (auto& t : trials) {
        auto held = held_at(t, e.at_us);
        if (!held)
          continue;
        auto it = e.machines.find(held->claimant);
        bool heard = it != e.machines.end();
        // Never heard from: quieter than any threshold.
        double quiet_s = heard ? static_cast<double>(sub_us(e.newest_reading_us, it->second[0].when_us)) / 1e6
                               : HUGE_VAL;
        if (!(quiet_s > s.over()))
          continue;
        opinion o;
        o.rule = name();
        o.kind = "trial";
        o.subject = "trial " + std::to_string(t.number) + " of study " + study + " (claimant "
                    + held->claimant + ")";
        o.run = held->run;
        o.measure = "its claimant's quiet_s";
        o.value = quiet_s;
        o.threshold = s.over();
        o.threshold_is = "`soma reclaim " + study + " --quiet-over " + number(s.over())
                         + "` would hand it back";
        o.since_us = add_us(heard ? std::max(it->second[0].when_us, held->claimed_us) : held->claimed_us,
                            over_us);
        hold(out, std::move(o), s, e.newest_reading_us);
      }
  }

private:
  struct attempt {
    std::string claimant, run;
    std::int64_t claimed_us = 0;
  };
  // The attempt that held `t` at the moment: the current one while it is
  // claimed (or was, then), else one handed back after the moment.
  static std::optional<attempt> held_at(const trial_row& t, const std::optional<std::int64_t>& at) {
    if (!at)
      return t.state == trial_state::claimed ? std::optional{attempt{t.claimant, t.run, t.claimed_us}}
                                             : std::nullopt;
    if (t.attempt > 0 && t.claimed_us <= *at
        && (t.state == trial_state::claimed || t.ended_us > *at))
      return attempt{t.claimant, t.run, t.claimed_us};
    for (auto& a : t.abandoned)
      if (a.claimed_us <= *at && a.ended_us > *at)
        return attempt{a.claimant, a.run, a.claimed_us};
    return std::nullopt;
  }
};

} // namespace

std::unique_ptr<rule> stale_claim() { return std::make_unique<stale_claim_rule>(); }

} // namespace soma::health
