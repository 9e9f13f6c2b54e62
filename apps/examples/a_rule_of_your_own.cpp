// A rule of your own (docs/health.md): a worker that has been up a while
// and served no slice, judged beside the shipped rules. Nothing is
// registered globally: the rule joins a rulebook, and the rulebook is given
// to judge.
//
//   a_rule_of_your_own [STORE]     (default: a fresh directory under $TMPDIR, else /tmp)

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "soma/health/judge.hpp"
#include "soma/store/readings.hpp"
#include "store_dir.hpp"

//! [rule]
// Every worker up longer than `over` seconds that has served no slice: a
// machine paid for and never sent anything.
class idle_machine : public soma::health::rule {
public:
  std::string name() const override { return "idle_machine"; }
  std::string looks_at() const override { return "readings"; }
  std::string condition() const override {
    return "a worker up over `over` seconds has served no slice";
  }
  std::vector<soma::health::setting> defaults() const override {
    return {{"over", 60, "seconds up"}, {"for", 0, "seconds"}, {"enabled", 1, ""}};
  }
  void judge(const soma::health::evidence& e, const soma::health::settings& s,
             std::vector<soma::health::opinion>& out) const override {
    for (auto& [id, readings] : e.machines) {
      auto& latest = readings.front(); // newest first
      // A claimant serves no slices by design.
      if (latest.served > 0 || !latest.claims.empty())
        continue;
      double up_s = static_cast<double>(latest.up_us) / 1e6;
      if (up_s <= s.over())
        continue;
      soma::health::opinion o;
      o.rule = name();
      o.kind = "machine";
      o.subject = "machine " + id;
      o.measure = "up_s";
      o.value = up_s;
      o.threshold = s.over();
      o.threshold_is = "seconds up with no slice served";
      // The condition began when it had been up `over` seconds.
      o.since_us = latest.when_us - latest.up_us + soma::health::clamp_us(s.over() * 1e6);
      // Its `for` from the settings; pending or firing by the clock machines
      // are held to (the newest reading of any).
      soma::health::hold(out, std::move(o), s, e.newest_reading_us);
    }
  }
};
//! [rule]

int main(int argc, char** argv) {
  auto dir = store_dir(argc, argv, "rule");
  soma::store store{dir};

  // Two workers' readings, as soma-node writes them every 50 s: w1 was sent
  // slices, w2 never was.
  auto t0 = std::chrono::duration_cast<std::chrono::microseconds>(
              std::chrono::system_clock::now().time_since_epoch())
              .count();
  for (std::int64_t step = 0; step < 3; ++step)
    for (auto id : {"w1-100", "w2-200"}) {
      soma::reading r;
      r.id = id;
      r.cores = 2;
      r.every_us = 50'000'000;
      r.when_us = t0 + step * r.every_us;
      r.up_us = step * r.every_us;
      r.served = r.id == "w1-100" ? static_cast<std::uint64_t>(3 * step) : 0;
      soma::put_reading(store, r);
    }

  //! [judged]
  auto book = soma::health::rulebook::shipped();
  book.add(std::make_unique<idle_machine>());
  for (auto& o : soma::health::judge(store, book).opinions)
    std::puts(o.says().c_str());
  //! [judged]
}
