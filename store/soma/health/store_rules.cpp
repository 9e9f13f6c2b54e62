// The rule about the store as a whole: silent_store, the one rule that
// holds a writer's clock against the reader's.

#include <chrono>

#include "soma/health/rules.hpp"

namespace soma::health {

namespace {

class silent_store_rule : public rule {
public:
  std::string name() const override { return "silent_store"; }
  std::string looks_at() const override { return "writes, clock"; }
  std::string condition() const override {
    return "the newest write in the store (any machine's reading, any run's forward, by its "
           "writer's clock) is more than `over` seconds behind this reader's clock (the moment "
           "asked for, with --at): the one rule that holds a writer's clock against the "
           "reader's, so a writer whose clock runs X behind the reader's makes the store look "
           "X quieter, and one X ahead hides X of silence";
  }
  std::vector<setting> defaults() const override {
    return {{"over", 300, "seconds behind this reader's clock"},
            {"for", 0, "seconds silent past that before it fires"},
            {"enabled", 1, ""}};
  }
  health::needs needs(const settings&) const override { return {1, 0, false}; }
  void judge(const evidence& e, const settings& s, std::vector<opinion>& out) const override {
    if (e.now_us == 0)
      return; // nothing written at all: an empty store is not a silent one
    auto threshold_us = clamp_us(s.over() * 1e6);
    auto silent_us = sub_us(e.reader_us, e.now_us);
    if (silent_us <= threshold_us)
      return;
    opinion o;
    o.rule = name();
    o.kind = "store";
    o.subject = "the store";
    o.measure = "silent_s";
    o.value = static_cast<double>(silent_us) / 1e6;
    o.threshold = s.over();
    o.threshold_is = number(s.over()) + " s behind this reader's clock (a writer's clock skewed "
                     "by X moves the measure by X)";
    o.since_us = add_us(e.now_us, threshold_us);
    hold(out, std::move(o), s, e.reader_us);
  }
};

} // namespace

std::unique_ptr<rule> silent_store() { return std::make_unique<silent_store_rule>(); }

} // namespace soma::health
