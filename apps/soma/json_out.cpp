#include "json_out.hpp"

#include <optional>
#include <ostream>
#include <string>

namespace soma::cli {

json json_of(const run_row& x) {
  return json{{"run", x.run},         {"forwards", x.forwards}, {"broke", x.broke},
              {"took_us", x.took_us}, {"first", x.first},       {"last", x.last}};
}

json json_of(const record& x) {
  json out{{"forward", x.forward},
           {"state", std::string{to_string(x.state)}},
           {"nodes", x.nodes},
           {"took_us", x.took_us}};
  for (auto& f : x.summary)
    out[f.key] = f.value;
  out["when"] = x.when;
  return out;
}

json json_of(const std::pair<std::uint64_t, double>& point) {
  return json{{"forward", point.first}, {"value", point.second}};
}

json json_of(const fact& x) {
  json out{{"fact", x.name}};
  for (auto& f : x.fields)
    out[f.key] = f.value;
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
              {"trials", x.trials}};
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
              {"claims", x.claims.empty() ? json(nullptr) : json(x.claims)},
              {"trials", or_null(x.trials)}};
}

void print_json_array(std::ostream& out, const json& array) {
  // A fact's text need not be UTF-8; replace what is not rather than throw
  // half-way through the array.
  out << array.dump(2, ' ', false, json::error_handler_t::replace) << '\n';
}

} // namespace soma::cli
