#include "soma/web/json.hpp"

#include "soma/store/run_query.hpp"
#include "soma/store/standing.hpp"

#include <charconv>
#include <cmath>
#include <optional>
#include <variant>
#include <ostream>
#include <string>

namespace soma::web {

json json_of(const scalar& x) {
  if (auto i = x.integer())
    return *i;
  if (auto d = x.number(); d && std::isfinite(*d))
    return *d;
  return x.str();
}

namespace {

// A number for --json: JSON has no NaN or infinity, so those are null.
json json_number(double x) {
  return std::isfinite(x) ? json(x) : json(nullptr);
}

} // namespace

json json_of(const run_row& x) {
  json out{{"run", x.run},         {"forwards", x.forwards}, {"broke", x.broke},
           {"took_us", x.took_us}, {"first", x.first},       {"last", x.last},
           {"duration_us", x.duration_us ? json(*x.duration_us) : json(nullptr)},
           {"status", std::string{to_string(x.status)}},     {"how", x.how}};
  out["ended_us"] = x.ended_us ? json(*x.ended_us) : json(nullptr);
  out["params"] = json_of(x.params);
  out["tags"] = x.tags;
  out["trial"] = x.trial ? json{{"study", x.trial->study}, {"trial", x.trial->number},
                                {"state", x.trial->state},
                                {"error", x.trial->error.empty() ? json(nullptr) : json(x.trial->error)}}
                         : json(nullptr);
  auto values = json::object();
  for (auto& v : x.summary_values)
    values[value_name(v)] = json{{"last", json_number(v.last)}, {"min", json_number(v.min)},
                                 {"max", json_number(v.max)}};
  out["values"] = std::move(values);
  out["executions"] = x.execution_count();
  auto began = json::array();
  for (auto& e : x.executions)
    began.push_back(json_of(e));
  out["began"] = std::move(began);
  return out;
}

json json_of(const execution& x) {
  return json{{"forward", x.forward},
              {"began_us", x.began_us ? json(x.began_us) : json(nullptr)},
              {"host", x.host.empty() ? json(nullptr) : json(x.host)},
              {"pid", x.pid ? json(x.pid) : json(nullptr)}};
}

json json_of(const record& x) {
  json out{{"forward", x.forward},
           {"state", std::string{to_string(x.state)}},
           {"nodes", x.nodes},
           {"took_us", x.took_us}};
  for (auto& f : x.summary)
    out[f.key] = json_of(f.value);
  out["when"] = x.when_s();
  out["when_us"] = x.when_us;
  return out;
}

namespace {

void quoted(std::string& out, std::string_view text) {
  out += '"';
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      static constexpr char hex[] = "0123456789abcdef";
      out += "\\u00";
      out += hex[c >> 4];
      out += hex[c & 15];
    } else {
      out += static_cast<char>(c); // UTF-8 as it is: a fact's text was checked when told
    }
  }
  out += '"';
}

void number(std::string& out, std::int64_t x) {
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, x);
  out.append(buf, end);
}

// A fact's value as json_of(scalar) writes it.
void scalar_json(std::string& out, const scalar& x) {
  if (x.is_text()) {
    quoted(out, x.text());
  } else if (x.is_integer()) {
    x.append_to(out);
  } else if (std::isfinite(*x.number())) {
    // The shortest text that reads back to it, with ".0" when that looks
    // whole (as json_of writes it), so that a reader still sees a real.
    auto at = out.size();
    x.append_to(out);
    if (out.find_first_of(".e", at) == std::string::npos)
      out += ".0";
  } else {
    quoted(out, x.str());
  }
}

} // namespace

void append_json(std::string& out, const record& x, std::uint64_t total) {
  out += "{\"forward\":";
  number(out, static_cast<std::int64_t>(x.forward));
  out += ",\"state\":";
  quoted(out, to_string(x.state));
  out += ",\"nodes\":";
  number(out, x.nodes);
  out += ",\"took_us\":";
  number(out, x.took_us);
  for (auto& f : x.summary) {
    out += ',';
    quoted(out, f.key);
    out += ':';
    scalar_json(out, f.value);
  }
  out += ",\"when\":";
  number(out, x.when_s());
  out += ",\"when_us\":";
  number(out, x.when_us);
  out += ",\"total\":";
  number(out, static_cast<std::int64_t>(total));
  out += '}';
}

json json_of(const std::pair<std::uint64_t, double>& point) {
  return json{{"forward", point.first}, {"value", point.second}};
}

json json_of(const fact& x) {
  json out{{"fact", x.name}};
  for (auto& f : x.fields)
    out[f.key] = json_of(f.value);
  return out;
}

json json_of(const cache_row& x) {
  json j;
  j["node"] = x.node;
  j["type"] = x.type;
  j["version"] = x.version;
  j["bytes"] = x.bytes;
  j["kept_at"] = x.kept_at;
  return j;
}

json json_of(const node_row& x) {
  return json{{"node", x.node},       {"ran", x.ran},     {"recalled", x.recalled},
              {"failed", x.failed},   {"took_us", x.took_us}, {"hosts", x.hosts},
              {"devices", x.devices}, {"mean_us", x.mean_us}};
}

json json_of(const reading& x) {
  return json{{"id", x.id},       {"busy", x.busy},     {"memory", x.memory},
              {"cores", x.cores}, {"up_us", x.up_us},   {"served", x.served},
              {"when_us", x.when_us},
              {"claims", x.claims.empty() ? json(nullptr) : json(x.claims)},
              {"trials", x.trials},
              {"listens", x.listens.empty() ? json(nullptr) : json(x.listens)},
              {"serves", x.serves},
              {"serves_store", x.serves_store.empty() ? json(nullptr) : json(x.serves_store)}};
}

json json_of(const critical_report& x) {
  auto clocks = json::array();
  for (auto& [host, c] : x.clocks)
    clocks.push_back(json{{"host", host}, {"offset_us", c.offset_us}, {"bound_us", c.bound_us},
                          {"trips", c.trips}, {"forward", c.forward}, {"wire_out_us", c.wire_out_us}});
  auto shares = json::array();
  for (auto& s : x.shares)
    shares.push_back(json{{"host", s.host}, {"segment", std::string{to_string(s.kind)}},
                          {"took_us", s.took_us}, {"share", s.of_took}});
  auto nodes = json::array();
  for (auto& n : x.nodes)
    nodes.push_back(json{{"node", n.node}, {"host", n.host}, {"forwards", n.forwards}, {"took_us", n.took_us}});
  json slowest = nullptr;
  if (x.slowest) {
    auto& w = *x.slowest;
    slowest = json{{"node", w.node}, {"host", w.host}, {"remote", w.remote},
                   {"remote_mean_us", w.remote_mean_us}, {"trip_mean_us", w.trip_mean_us},
                   {"here", w.here}, {"here_mean_us", w.here_mean_us}, {"took_mean_us", w.took_mean_us},
                   {"estimate_mean_us", w.here > 0 ? json(w.estimate_mean_us) : json(nullptr)}};
  }
  return json{{"run", x.run},       {"forwards", x.forwards}, {"first", x.first},
              {"last", x.last},     {"took_us", x.took_us},   {"clocks", clocks},
              {"shares", shares},   {"nodes", nodes},         {"slowest", slowest},
              {"worst_gap", x.worst_gap}};
}

namespace {

template <class T>
json or_null(const std::optional<T>& x) {
  return x ? json(*x) : json(nullptr);
}

} // namespace

json json_of(const fleet_row& x) {
  return json{{"host", x.host},
              {"machine", x.machine.empty() ? json(nullptr) : json(x.machine)},
              {"slices", x.slices},
              {"took_us", x.took_us},
              {"waiting_us", x.waiting_us},
              {"busy", or_null(x.busy)},
              {"served", or_null(x.served)},
              {"quiet_s", or_null(x.quiet_s)},
              {"state", x.state ? json(to_string(*x.state)) : json(nullptr)},
              {"claims", x.claims.empty() ? json(nullptr) : json(x.claims)},
              {"trials", or_null(x.trials)}};
}

void print_json_array(std::ostream& out, const json& array) {
  // A fact's text need not be UTF-8; replace what is not rather than throw
  // half-way through the array.
  out << array.dump(2, ' ', false, json::error_handler_t::replace) << '\n';
}

json json_of(const values& xs) {
  auto out = json::object();
  for (auto& [name, v] : xs)
    std::visit([&](auto& x) { out[name] = x; }, v);
  return out;
}

json json_of(const study_summary& r) {
  return json{{"study", r.study.name},
              {"trials", r.study.trials},
              {"waiting", r.waiting},
              {"claimed", r.claimed},
              {"done", r.done},
              {"broke", r.broke},
              {"abandoned", r.abandoned},
              {"function", r.study.function.empty() ? json(nullptr) : json(r.study.function)},
              {"created_us", r.study.created_us}};
}

namespace {

json number_or_text(double x) {
  if (std::isfinite(x))
    return x;
  return health::number(x); // "inf" or "nan": JSON has no such numbers
}

} // namespace

json json_of(const health::opinion& op) {
  return json{{"opinion", std::string{to_string(op.state)}},
              {"rule", op.rule},
              {"kind", op.kind},
              {"subject", op.subject},
              {"run", op.run.empty() ? json(nullptr) : json(op.run)},
              {"measure", op.measure},
              {"value", number_or_text(op.value)},
              {"threshold", number_or_text(op.threshold)},
              {"threshold_is", op.threshold_is},
              {"since_us", op.since_us},
              {"for_s", static_cast<double>(op.for_us) / 1e6},
              {"says", op.says()}};
}

namespace {

json us_or_null(const std::optional<std::int64_t>& x) { return x ? json(*x) : json(nullptr); }

} // namespace

json json_of(const health::episode& ep) {
  return json{{"rule", ep.rule},
              {"kind", ep.kind},
              {"subject", ep.subject},
              {"run", ep.run.empty() ? json(nullptr) : json(ep.run)},
              {"measure", ep.measure},
              {"threshold", number_or_text(ep.threshold)},
              {"threshold_is", ep.threshold_is},
              {"for_s", static_cast<double>(ep.for_us) / 1e6},
              {"since_us", ep.since_us},
              {"pending_us", ep.pending_us},
              {"firing_us", us_or_null(ep.firing_us)},
              {"cleared_us", us_or_null(ep.cleared_us)},
              {"pending_value", number_or_text(ep.pending_value)},
              {"firing_value", ep.firing_us ? number_or_text(ep.firing_value) : json(nullptr)},
              {"last_value", number_or_text(ep.last_value)},
              {"steps", ep.steps}};
}

json json_of(const health::difference& d) {
  auto& one = d.a ? *d.a : *d.b;
  json out{{"difference", std::string{to_string(d.is)}},
           {"rule", one.rule},
           {"subject", one.subject},
           {"moved_s", static_cast<double>(d.moved_us) / 1e6}};
  for (auto [side, ep] : {std::pair{"a_", &d.a}, std::pair{"b_", &d.b}}) {
    auto name = std::string{side};
    out[name + "pending_us"] = *ep ? json((*ep)->pending_us) : json(nullptr);
    out[name + "firing_us"] = *ep ? us_or_null((*ep)->firing_us) : json(nullptr);
    out[name + "cleared_us"] = *ep ? us_or_null((*ep)->cleared_us) : json(nullptr);
    out[name + "threshold"] = *ep ? number_or_text((*ep)->threshold) : json(nullptr);
  }
  return out;
}

json standing_json(const std::map<std::string, reading>& latest, std::int64_t now_us) {
  quietness quiet{latest, now_us};
  auto array = json::array();
  for (auto& [id, r] : latest) {
    auto one = json_of(r);
    one["quiet_s"] = quiet.of(r);
    one["state"] = to_string(quiet.state_of(r));
    array.push_back(std::move(one));
  }
  return array;
}

json trials_json(const std::vector<trial_row>& rows, const std::map<std::string, reading>& latest) {
  quietness quiet{latest};

  auto array = json::array();
  for (auto& r : rows) {
    auto gone = json::array();
    for (auto& a : r.abandoned)
      gone.push_back(json{{"attempt", a.attempt}, {"claimant", a.claimant},
                          {"claimed_us", a.claimed_us}, {"run", a.run},
                          {"ended_us", a.ended_us}, {"why", a.why}});
    auto q = r.state == trial_state::claimed ? quiet.of(latest, r.claimant) : std::nullopt;
    array.push_back(json{{"trial", r.number},
                         {"params", json_of(r.params)},
                         {"state", to_string(r.state)},
                         {"attempt", r.attempt},
                         {"claimant", r.claimant.empty() ? json(nullptr) : json(r.claimant)},
                         {"quiet_s", q ? json(*q) : json(nullptr)},
                         {"claimed_us", r.claimed_us ? json(r.claimed_us) : json(nullptr)},
                         {"run", r.run.empty() ? json(nullptr) : json(r.run)},
                         {"ended_us", r.ended_us ? json(r.ended_us) : json(nullptr)},
                         {"result", json_of(r.result)},
                         {"error", r.error.empty() ? json(nullptr) : json(r.error)},
                         {"abandoned", std::move(gone)},
                         {"added_us", r.added_us}});
  }
  return array;
}

} // namespace soma::web
