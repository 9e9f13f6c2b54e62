#include "soma/web/metrics.hpp"

#include <charconv>
#include <cmath>

#include "soma/store/readers.hpp"
#include "soma/store/readings.hpp"
#include "soma/store/standing.hpp"

namespace soma::web {

namespace {

void number(std::string& out, double x) {
  if (std::isnan(x)) {
    out += "NaN";
  } else if (std::isinf(x)) {
    out += x > 0 ? "+Inf" : "-Inf";
  } else {
    char buf[32];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, x);
    out.append(buf, ec == std::errc{} ? end : buf);
  }
}

void escaped(std::string& out, std::string_view text, bool quotes) {
  for (char c : text) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '\n')
      out += "\\n";
    else if (c == '"' && quotes)
      out += "\\\"";
    else
      out += c;
  }
}

} // namespace

void exposition::family(std::string_view name, std::string_view type, std::string_view help) {
  name_ = name;
  text_ += "# HELP ";
  text_ += name;
  text_ += ' ';
  escaped(text_, help, false);
  text_ += "\n# TYPE ";
  text_ += name;
  text_ += ' ';
  text_ += type;
  text_ += '\n';
}

void exposition::sample(const labels& with, double value) {
  sample(name_, with, value);
}

void exposition::sample(std::string_view name, const labels& with, double value) {
  text_ += name;
  if (!with.empty()) {
    text_ += '{';
    for (std::size_t i = 0; i < with.size(); ++i) {
      if (i)
        text_ += ',';
      text_ += with[i].first;
      text_ += "=\"";
      escaped(text_, with[i].second, true);
      text_ += '"';
    }
    text_ += '}';
  }
  text_ += ' ';
  number(text_, value);
  text_ += '\n';
}

void store_metrics(const store& s, const std::vector<run_row>& rows, exposition& out) {
  out.family("soma_runs", "gauge", "Runs in the store.");
  out.sample({}, static_cast<double>(rows.size()));
  out.family("soma_run_forwards", "gauge", "Forwards recorded, per run.");
  for (auto& r : rows)
    out.sample({{"run", r.run}}, static_cast<double>(r.forwards));
  out.family("soma_run_broke", "gauge", "Forwards that broke, per run.");
  for (auto& r : rows)
    out.sample({{"run", r.run}}, static_cast<double>(r.broke));
  out.family("soma_run_took_seconds", "gauge", "Time its forwards took, added, per run.");
  for (auto& r : rows)
    out.sample({{"run", r.run}}, static_cast<double>(r.took_us) / 1e6);
  out.family("soma_run_last_forward_timestamp_seconds", "gauge",
             "When the run's last forward was recorded (unix seconds).");
  for (auto& r : rows)
    out.sample({{"run", r.run}}, static_cast<double>(r.last));

  auto latest = standing(s);
  quietness quiet{latest};
  struct gauge {
    const char* name;
    const char* help;
    double (*of)(const reading&);
  };
  static constexpr gauge gauges[] = {
    {"soma_machine_busy", "The machine's busy fraction (0 to 1) in its latest reading.",
     [](const reading& r) { return r.busy; }},
    {"soma_machine_memory", "The machine's memory in use (0 to 1) in its latest reading.",
     [](const reading& r) { return r.memory; }},
    {"soma_machine_cores", "The machine's cores.",
     [](const reading& r) { return static_cast<double>(r.cores); }},
    {"soma_machine_served", "Slices the machine has served, as of its latest reading.",
     [](const reading& r) { return static_cast<double>(r.served); }},
    {"soma_machine_reading_timestamp_seconds", "When its latest reading was written (unix seconds).",
     [](const reading& r) { return static_cast<double>(r.when_us) / 1e6; }},
  };
  for (auto& g : gauges) {
    out.family(g.name, "gauge", g.help);
    for (auto& [id, r] : latest)
      out.sample({{"machine", id}}, g.of(r));
  }
  out.family("soma_machine_quiet_seconds", "gauge",
             "Seconds its latest reading is behind the newest of any machine (writer against "
             "writer, no reader's clock).");
  for (auto& [id, r] : latest)
    out.sample({{"machine", id}}, quiet.of(r));
}

} // namespace soma::web
