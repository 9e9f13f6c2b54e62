#include "soma/health/judge.hpp"

#include <algorithm>
#include <chrono>
#include <limits>

#include "soma/store/readings.hpp"
#include "soma/store/tails.hpp"
#include "soma/store/trials.hpp"

namespace soma::health {

judgement judge(const store& s, const rulebook& book, const judge_options& o) {
  auto on = book.enabled();
  auto need = book.needs();
  if (o.run) // says so when there is no such run, whatever the moment
    (void) tails(s, {.last = 1, .run = o.run});

  evidence e;
  e.at_us = o.at_us;
  e.reader_us = o.at_us.value_or(std::chrono::duration_cast<std::chrono::microseconds>(
                                   std::chrono::system_clock::now().time_since_epoch())
                                   .count());
  auto at_us = o.at_us.value_or(std::numeric_limits<std::int64_t>::max());
  readings_back(s, at_us, [&](const std::string& id, const reading& r) {
    auto& mine = e.machines[id];
    mine.push_back(r);
    if (mine.size() >= kept_per_machine)
      return false;
    for (auto* x : on)
      if (x->rule->more_readings(mine, x->settings))
        return true;
    return false;
  });
  for (auto& [id, rs] : e.machines)
    e.newest_reading_us = std::max(e.newest_reading_us, rs.front().when_us);
  e.now_us = e.newest_reading_us;
  if (need.forwards > 0) {
    tail_options t{.last = need.forwards, .facts = need.facts};
    if (o.at_us)
      t.at = *o.at_us / 1'000'000; // records keep whole seconds
    e.runs = tails(s, t);
    for (auto& r : e.runs)
      if (!r.records.empty())
        e.now_us = std::max(e.now_us, r.records.back().when_us);
  }
  std::size_t trial_count = 0;
  if (need.trials)
    for (auto& st : studies(s)) {
      auto& all = e.trials[st.study.name];
      all = trials(s, st.study.name);
      trial_count += all.size();
    }

  judgement out;
  out.now_us = e.now_us;
  out.machines = e.machines.size();
  out.runs = e.runs.size();
  out.trials = trial_count;
  for (auto* x : on)
    x->rule->judge(e, x->settings, out.opinions);
  if (o.run)
    std::erase_if(out.opinions, [&](const opinion& op) { return op.run != *o.run; });
  std::stable_partition(out.opinions.begin(), out.opinions.end(),
                        [](const opinion& op) { return op.state == status::firing; });
  return out;
}

} // namespace soma::health
