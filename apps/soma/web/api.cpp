#include "soma/web/api.hpp"

#include <algorithm>
#include <chrono>
#include <charconv>
#include <cmath>
#include <optional>
#include <stdexcept>
#include <utility>

#include "soma/draw/machines.hpp"
#include "soma/draw/progress.hpp"
#include "soma/draw/study.hpp"
#include "soma/draw/rolling.hpp"
#include "soma/draw/spent.hpp"
#include "soma/health/judge.hpp"
#include "soma/health/replay.hpp"
#include "soma/health/rules.hpp"
#include "soma/store/critical.hpp"
#include "soma/store/fleet.hpp"
#include "soma/store/readers.hpp"
#include "soma/store/readings.hpp"
#include "soma/store/standing.hpp"
#include "soma/store/tails.hpp"
#include "soma/store/trials.hpp"
#include "soma/vocabulary.hpp"
#include "soma/web/compare.hpp"
#include "soma/web/csv.hpp"

namespace soma::web {

namespace {

const std::string* param(const params& p, std::string_view name) {
  auto at = p.find(name);
  return at == p.end() || at->second.empty() ? nullptr : &at->second;
}

// A whole number parameter in [lo, hi], or `otherwise` when not given.
std::int64_t number_param(const params& p, std::string_view name, std::int64_t otherwise,
                          std::int64_t lo, std::int64_t hi) {
  auto* text = param(p, name);
  if (!text)
    return otherwise;
  std::int64_t x = 0;
  auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), x);
  if (ec != std::errc{} || end != text->data() + text->size() || x < lo || x > hi)
    throw api_error(400, "'" + std::string{name} + "' must be a whole number from "
                           + std::to_string(lo) + " to " + std::to_string(hi) + ", not '" + *text
                           + "'");
  return x;
}

std::string fact_param(const params& p) {
  auto* f = param(p, "fact");
  return f ? *f : "loss";
}

// The curve of `fact` over `run`, only forwards [from, to] when given.
draw::series ranged_curve(const store& s, std::string_view run, const params& p,
                          curve_cost* took = nullptr, std::vector<std::int64_t>* when_us = nullptr) {
  draw::series values;
  std::vector<std::int64_t> times;
  if (when_us) {
    // Each point's forward's time too, for a time axis (409 from a served
    // store of a soma before 0.5, which sends none).
    auto timed = draw::timed_curve(s, run, fact_param(p), took);
    values = std::move(timed.values);
    times = std::move(timed.when_us);
  } else {
    values = curve(s, run, fact_param(p), took);
  }
  if (values.empty())
    throw api_error(404, "no forward of run '" + std::string{run} + "' told '" + fact_param(p)
                           + "'; /api/run/" + std::string{run} + " lists the series it can draw");
  auto from = static_cast<std::uint64_t>(number_param(p, "from", 0, 0, INT64_MAX));
  auto to = static_cast<std::uint64_t>(number_param(p, "to", INT64_MAX, 0, INT64_MAX));
  if (from > to)
    throw api_error(400, "'from' (" + std::to_string(from) + ") is past 'to' ("
                           + std::to_string(to) + "): a range runs from its first forward to its last");
  draw::series kept;
  for (std::size_t i = 0; i < values.size(); ++i)
    if (values[i].first >= from && values[i].first <= to) {
      kept.push_back(values[i]);
      if (when_us)
        when_us->push_back(times[i]);
    }
  return kept;
}

// At most `n` points: per bucket of forwards, its first, lowest, highest and
// last point, so the line through them covers what the line through all does.
draw::series thinned(const draw::series& xs, std::size_t n) {
  if (xs.size() <= n || n < 4)
    return xs;
  draw::series out;
  auto buckets = n / 4;
  auto per = (xs.size() + buckets - 1) / buckets;
  for (std::size_t i = 0; i < xs.size(); i += per) {
    auto j = std::min(xs.size(), i + per);
    auto lo = i, hi = i;
    for (auto k = i; k < j; ++k) {
      if (xs[k].second < xs[lo].second)
        lo = k;
      if (xs[k].second > xs[hi].second)
        hi = k;
    }
    std::size_t keep[] = {i, std::min(lo, hi), std::max(lo, hi), j - 1};
    for (std::size_t k = 0; k < 4; ++k)
      if (k == 0 || keep[k] != keep[k - 1])
        out.push_back(xs[keep[k]]);
  }
  return out;
}

template <class F>
draw::figure figured(F&& f) {
  try {
    return f();
  } catch (const std::invalid_argument& e) { // nothing told, a value not finite
    throw api_error(404, e.what());
  }
}

template <class F>
std::string drawn(F&& f) {
  return figured(std::forward<F>(f)).svg();
}

// `window=N` (odd, as `soma plot --window N`) when given.
std::optional<std::size_t> window_param(const params& p) {
  if (!param(p, "window"))
    return std::nullopt;
  auto n = static_cast<std::size_t>(number_param(p, "window", 1, 1, 1'000'001));
  try {
    draw::check_window(n);
  } catch (const std::invalid_argument& e) {
    throw api_error(400, std::string{"'window': "} + e.what());
  }
  return n;
}

// `log_y=1` (or true): a log y axis, as `soma plot --log-y`.
bool log_y_param(const params& p) {
  auto* text = param(p, "log_y");
  if (!text || *text == "0" || *text == "false")
    return false;
  if (*text == "1" || *text == "true")
    return true;
  throw api_error(400, "'log_y' is 1 (a log y axis, as soma plot --log-y) or 0, not '" + *text + "'");
}

// x=time: the curve against each forward's wall time (soma plot --x time);
// x=forward, or none, against the forward's number.
bool time_x_param(const params& p) {
  auto* text = param(p, "x");
  if (!text || *text == "forward")
    return false;
  if (*text == "time")
    return true;
  throw api_error(400, "'x' is forward (the forward's number) or time (its wall time, as soma plot "
                       "--x time), not '" + *text + "'");
}


} // namespace

int status_of(const store_error& e) noexcept {
  switch (e.trouble()) {
    case store_trouble::invalid: return 400;
    case store_trouble::missing: return 404;
    case store_trouble::unreachable:
    case store_trouble::busy: return 503;
    case store_trouble::timed_out: return 504;
    case store_trouble::read_only: return 403;
    case store_trouble::refused: return 409;
    case store_trouble::damaged:
    case store_trouble::failed: break;
  }
  return 500;
}

params last_of(const all_params& p) {
  params out;
  for (auto& [k, v] : p)
    out[k] = v;
  return out;
}

run_query run_query_of(const all_params& p) {
  auto every = [&](std::string_view name) {
    std::vector<std::string> out;
    for (auto [at, end] = p.equal_range(name); at != end; ++at)
      if (!at->second.empty())
        out.push_back(at->second);
    return out;
  };
  auto one = last_of(p);
  run_query q;
  if (auto* prefix = param(one, "prefix"))
    q.prefix = *prefix;
  q.statuses = every("status");
  q.tags = every("tag");
  q.params = every("param");
  q.where = every("where");
  auto* reverse = param(one, "reverse");
  if (reverse && *reverse != "0" && *reverse != "1" && *reverse != "true" && *reverse != "false")
    throw api_error(400, "'reverse' is 1 (the order turned round, as soma runs --reverse) or 0, not '"
                           + *reverse + "'");
  bool turned = reverse && (*reverse == "1" || *reverse == "true");
  if (auto* sort = param(one, "sort")) {
    q.sort = *sort;
    q.reverse = turned;
  } else { // the page's order: most recent first
    q.sort = "last";
    q.reverse = !turned;
  }
  if (auto ok = check_query(q); !ok)
    throw api_error(400, describe(ok.error()) + " (/api/runs takes status=, tag=, param=, where=, prefix=, "
                               "sort= and reverse=, as soma runs does; docs/web.md)");
  return q;
}

json runs_page(const store& s, const all_params& p) {
  return runs_page(answering([&] { return runs(s); }), p);
}

json runs_page(std::vector<run_row> rows, const all_params& all) {
  auto p = last_of(all);
  auto offset = number_param(p, "offset", 0, 0, INT64_MAX);
  auto limit = number_param(p, "limit", 50, 1, 1000);
  auto q = run_query_of(all);
  std::vector<std::string> names; // what a page offers to sort by
  for (auto& r : rows)
    for (auto& [name, v] : r.params)
      if (std::find(names.begin(), names.end(), name) == names.end())
        names.push_back(name);
  std::sort(names.begin(), names.end());
  std::vector<std::string> values; // and the summarised values, each three ways
  for (auto& r : rows)
    for (auto& v : r.summary_values)
      if (auto name = value_name(v); std::find(values.begin(), values.end(), name) == values.end())
        values.push_back(name);
  try {
    rows = select_runs(std::move(rows), q);
  } catch (const std::invalid_argument& e) { // a sort key that is nothing here
    throw api_error(400, std::string{"sort "} + e.what());
  }
  auto* filter = param(p, "filter");
  if (filter)
    std::erase_if(rows, [&](auto& r) { return r.run.find(*filter) == std::string::npos; });
  auto page = json::array();
  for (auto i = static_cast<std::size_t>(offset);
       i < rows.size() && page.size() < static_cast<std::size_t>(limit); ++i)
    page.push_back(json_of(rows[i]));
  json asked{{"prefix", q.prefix}, {"status", q.statuses}, {"tag", q.tags},
             {"param", q.params},  {"where", q.where},
             {"sort", param(p, "sort") ? json(q.sort) : json(nullptr)},
             {"reverse", param(p, "sort") ? q.reverse : !q.reverse}};
  return json{{"total", rows.size()},
              {"offset", offset},
              {"limit", limit},
              {"filter", filter ? json(*filter) : json(nullptr)},
              {"query", std::move(asked)},
              {"param_names", std::move(names)},
              {"value_names", std::move(values)},
              {"runs", std::move(page)}};
}

json store_page(const store& s, const std::vector<run_row>& rows) {
  return answering([&] {
    std::optional<std::int64_t> reading, forward, longest_every;
    auto latest = standing(s);
    auto now = reader_now_us();
    quietness quiet{latest, now};
    bool all_quiet = !latest.empty();
    for (auto& [id, r] : latest) {
      reading = std::max(reading.value_or(r.when_us), r.when_us);
      auto every = judged_interval_us(r);
      longest_every = std::max(longest_every.value_or(every), every);
      all_quiet = all_quiet && quiet.state_of(r) == machine_state::quiet;
    }
    for (auto& r : rows)
      if (r.forwards > 0)
        forward = std::max(forward.value_or(r.last * 1'000'000), r.last * 1'000'000);
    auto newest = reading && forward ? std::optional{std::max(*reading, *forward)}
                                     : (reading ? reading : forward);
    double silent_after = 300;
    for (auto& x : health::silent_store()->defaults())
      if (x.name == "over")
        silent_after = x.value;
    auto or_null = [](const std::optional<std::int64_t>& x) { return x ? json(*x) : json(nullptr); };
    return json{{"newest_write_us", or_null(newest)},
                {"newest_reading_us", or_null(reading)},
                {"newest_forward_us", or_null(forward)},
                {"silent_after_s", silent_after},
                // Stale: every machine quiet, as soma standing judges it by
                // this server's clock; null with no machine reporting here.
                {"stale", latest.empty() ? json(nullptr) : json(all_quiet)},
                {"stale_after_s", longest_every ? json(static_cast<double>(quiet_after_intervals
                                                                          * *longest_every
                                                                          + reader_clock_drift_us)
                                                       / 1e6)
                                                : json(nullptr)},
                {"now_us", now}};
  });
}

json run_page(const store& s, std::string_view run) {
  return answering([&] {
    auto row = run_summary(s, run);
    auto tail = tails(s, {.last = 1, .facts = 1, .run = std::string{run}});
    auto series = json::array();
    auto told = json::array();
    std::optional<std::int64_t> ended;
    if (!tail.empty() && !tail.front().records.empty()) {
      auto& t = tail.front();
      ended = t.ended_us;
      for (auto& f : t.records.back().summary)
        series.push_back(f.key);
      // What else a curve can be drawn of: the numbers the last forward told
      // (not the engine's words, whose numbers are durations of nodes).
      if (auto* facts = t.facts_of(t.records.size() - 1))
        for (auto& f : *facts) {
          if (vocabulary::is_engine_word(f.name))
            continue;
          for (auto& x : f.fields) {
            if (!x.value.is_number())
              continue;
            auto name = f.name + "." + x.key;
            if (std::find(series.begin(), series.end(), name) == series.end()
                && std::find(told.begin(), told.end(), name) == told.end())
              told.push_back(name);
          }
        }
    }
    return json{{"run", json_of(row)},
                {"series", std::move(series)},
                {"told", std::move(told)},
                {"ended_us", ended ? json(*ended) : json(nullptr)}};
  });
}

json forwards_page(const store& s, std::string_view run, const params& p) {
  auto offset = number_param(p, "offset", 0, INT64_MIN, INT64_MAX);
  auto limit = number_param(p, "limit", 100, 1, 1000);
  return answering([&] {
    std::uint64_t from = 0;
    if (offset < 0) { // from the end: the total comes first
      auto total = forwards(s, run, UINT64_MAX, 0).total;
      auto back = static_cast<std::uint64_t>(-(offset + 1)) + 1;
      from = back >= total ? 0 : total - back;
    } else {
      from = static_cast<std::uint64_t>(offset);
    }
    auto page = forwards(s, run, from, static_cast<std::size_t>(limit));
    auto rows = json::array();
    for (auto& r : page.records)
      rows.push_back(json_of(r));
    return json{{"total", page.total}, {"offset", from}, {"limit", limit},
                {"forwards", std::move(rows)}};
  });
}

json forward_page(const store& s, std::string_view run, std::uint64_t n) {
  return answering([&] {
    auto page = forwards(s, run, n, 1);
    if (page.records.empty())
      throw api_error(404, "run '" + std::string{run} + "' has no forward " + std::to_string(n)
                             + "; it has " + std::to_string(page.total) + " (0 to "
                             + std::to_string(page.total - 1) + ")");
    auto& r = page.records.front();
    std::vector<std::vector<fact>> all{facts(s, run, n)};
    auto& fs = all.front();
    auto told = json::array();
    for (auto& f : fs)
      told.push_back(json_of(f));
    // Its workers' facts on this machine's clock, by offsets from its own trips.
    auto placed = json::object();
    for (auto& seg : timeline_of(r, fs, estimate_clocks({r}, all)).all)
      if (seg.fact && fs[*seg.fact].has("host") && fs[*seg.fact].name != "left")
        placed[std::to_string(*seg.fact)] = json{{"began_us", seg.began_us}, {"took_us", seg.took_us}};
    return json{{"record", json_of(r)}, {"facts", std::move(told)}, {"placed", std::move(placed)}};
  });
}

json curve_page(const store& s, std::string_view run, const params& p) {
  auto most = number_param(p, "points", 0, 0, 1'000'000);
  return answering([&] {
    curve_cost took = curve_cost::scan;
    auto values = ranged_curve(s, run, p, &took);
    if (most > 0)
      values = thinned(values, static_cast<std::size_t>(most));
    auto points = json::array();
    for (auto& x : values)
      points.push_back(json_of(x));
    return json{{"fact", fact_param(p)}, {"cost", std::string{to_string(took)}},
                {"points", std::move(points)}};
  });
}

draw::figure curve_figure(const store& s, std::string_view run, const params& p) {
  auto window = window_param(p);
  auto log_y = log_y_param(p);
  return answering([&] {
    auto fact = fact_param(p);
    auto* with = param(p, "with");
    bool timed = time_x_param(p);
    if (timed && with)
      throw api_error(400, "x=time draws one run against its wall time; runs compared are drawn "
                           "against the forward (leave out x)");
    if (!with) {
      // The points a pointer hovers over ride on the figure: one read of the
      // curve serves both. On a time axis each says its x too (seconds
      // since the first value).
      std::vector<std::int64_t> when_us;
      auto values = ranged_curve(s, run, p, nullptr, timed ? &when_us : nullptr);
      std::vector<execution> executions; // a line where each later one began
      try {
        executions = run_summary(s, run).executions;
      } catch (const store_error&) {
        // (damaged metadata: the curve without the lines, as soma plot draws it)
      }
      return figured([&] {
        auto f = draw::progress(values, run, fact,
                                {.window = window, .log_y = log_y, .executions = executions,
                                 .when_us = when_us});
        std::string points;
        std::size_t at = 0; // where each thinned point is in `values`, for its time
        for (auto& [n, v] : thinned(values, 2000)) {
          char buf[64];
          auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
          points += std::to_string(n) + ' ' + std::string(buf, ec == std::errc{} ? end : buf);
          if (timed) {
            while (values[at].first != n)
              ++at;
            auto [e2, ec2] = std::to_chars(buf, buf + sizeof buf,
                                           static_cast<double>(when_us[at] - when_us.front()) / 1e6);
            points += ' ' + std::string(buf, ec2 == std::errc{} ? e2 : buf);
          }
          points += ';';
        }
        f.set_data("points", std::move(points));
        return f;
      });
    }
    std::vector<draw::compared> runs{{std::string{run}, ranged_curve(s, run, p)}};
    // A name the store has no run of is left off the chart and named on
    // its root (data-unknown), for the page to say beside its input: one
    // typo does not cost the other runs' chart.
    std::string unknown;
    std::string_view rest = *with;
    while (!rest.empty()) {
      auto comma = rest.find(',');
      auto other = rest.substr(0, comma);
      rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
      if (other.empty() || other == run)
        continue;
      if (runs.size() == 8)
        throw api_error(400, "at most 8 runs compare on one chart");
      draw::series values;
      try {
        values = ranged_curve(s, other, p);
      } catch (const api_error& e) { // told nothing (in the range): named on the figure
        if (e.status() != 404)
          throw;
      } catch (const store_error& e) { // no such run, or a name no run can have
        if (e.trouble() != store_trouble::missing && e.trouble() != store_trouble::invalid)
          throw;
        unknown += (unknown.empty() ? "" : ",") + std::string{other};
        continue;
      }
      runs.push_back({std::string{other}, std::move(values)});
    }
    // Each named by its params, as soma plot progress names them.
    std::vector<std::string> names;
    std::vector<values> params;
    for (auto& r : runs) {
      names.push_back(r.run);
      try {
        params.push_back(run_summary(s, r.run).params);
      } catch (const store_error&) {
        params.emplace_back(); // (damaged metadata: named by its id)
      }
    }
    auto labels = draw::labels_by_params(names, params);
    for (std::size_t i = 0; i < runs.size(); ++i)
      runs[i].label = labels[i];
    return figured([&] {
      auto f = draw::compare(runs, fact, {.window = window, .log_y = log_y});
      if (!unknown.empty())
        f.set_data("unknown", unknown);
      return f;
    });
  });
}

std::string curve_svg(const store& s, std::string_view run, const params& p) {
  return curve_figure(s, run, p).svg();
}

std::string curve_png(const store& s, std::string_view run, const params& p) {
  return curve_figure(s, run, p).png();
}

std::string curve_csv(const store& s, std::string_view run, const params& p) {
  return answering([&] { return web::curve_csv(ranged_curve(s, run, p)); });
}

json compare_page(const store& s, std::string_view a, std::string_view b) {
  return answering([&] { return json_of(compare_runs(s, a, b)); });
}

std::string spent_svg(const store& s, std::string_view run, const params& p) {
  auto last = number_param(p, "last", 1000, 1, INT64_MAX);
  return answering([&] {
    return drawn([&] { return draw::spent(s, run, static_cast<std::size_t>(last)); });
  });
}

std::string study_svg(const store& s, std::string_view study, const params& p) {
  auto text = [&](const char* name, const char* otherwise) {
    auto* v = param(p, name);
    return v ? *v : std::string{otherwise};
  };
  return answering([&] {
    return drawn([&] {
      return draw::study(s, study, text("fact", "loss"), text("result", ""), {}, text("by", ""));
    });
  });
}

std::string machines_svg(const store& s, std::string_view run) {
  return answering([&] { return drawn([&] { return draw::machines(s, run); }); });
}

json nodes_page(const store& s, std::string_view run, const params& p) {
  auto* all = param(p, "last");
  bool every = all && *all == "all";
  auto last = every ? 0 : number_param(p, "last", 1000, 1, INT64_MAX);
  return answering([&] {
    auto rows = every ? nodes(s, run) : nodes(s, run, static_cast<std::size_t>(last));
    auto out = json::array();
    for (auto& r : rows)
      out.push_back(json_of(r));
    return json{{"last", every ? json("all") : json(last)}, {"nodes", std::move(out)}};
  });
}

json critical_page(const store& s, std::string_view run, const params& p) {
  auto last = number_param(p, "last", 100, 1, 10'000);
  return answering([&] { return json_of(critical(s, run, {.last = static_cast<std::size_t>(last)})); });
}

json fleet_page(const store& s, std::string_view run) {
  return answering([&] {
    auto out = json::array();
    for (auto& r : fleet(s, run, {.only_the_run = true})) // the fleet page has the rest
      out.push_back(json_of(r));
    return json{{"hosts", std::move(out)}};
  });
}

json standing_page(const store& s) {
  return answering([&] { return json{{"machines", standing_json(standing(s))}}; });
}

json studies_page(const store& s) {
  return answering([&] {
    auto out = json::array();
    for (auto& r : studies(s))
      out.push_back(json_of(r));
    return json{{"studies", std::move(out)}};
  });
}

json study_page(const store& s, std::string_view study) {
  return answering([&] {
    auto rows = trials(s, study);
    return json{{"study", std::string{study}}, {"trials", trials_json(rows, standing(s))}};
  });
}

json health_page(const store& s, const params& p) {
  return answering([&] {
    health::judge_options o;
    if (auto* run = param(p, "run"))
      o.run = *run;
    auto j = health::judge(s, health::rulebook::shipped(), o);
    auto out = json::array();
    for (auto& op : j.opinions)
      out.push_back(json_of(op));
    return json{{"opinions", std::move(out)},
                {"now_us", j.now_us},
                {"machines", j.machines},
                {"runs", j.runs},
                {"trials", j.trials},
                {"note", "opinions, not facts: each is a shipped health rule's reading of the "
                         "store at the threshold it names (docs/health.md); nothing here is "
                         "recorded"}};
  });
}

json health_replay_page(const store& s, const params& p) {
  return answering([&] {
    auto book = health::rulebook::shipped();
    health::replay_options o;
    // TO by default the newest write, which only a judgement says.
    auto newest_s = param(p, "to") ? 0 : (health::judge(s, book).now_us + 999'999) / 1'000'000;
    auto to_s = number_param(p, "to", newest_s, 0, 253'402'300'799);
    auto span_s = number_param(p, "span_s", 3600, 0, 253'402'300'799);
    auto from_s = number_param(p, "from", std::max<std::int64_t>(0, to_s - span_s), 0, to_s);
    o.from_us = from_s * 1'000'000;
    o.to_us = to_s * 1'000'000;
    o.every_us = number_param(p, "every_ms", 1000, 1, 86'400'000) * 1000;
    if (auto* run = param(p, "run"))
      o.run = *run;
    // A replay reads every forward of its window: a page asks a day at most.
    if (to_s - from_s > page_replay_window_s)
      throw api_error(400, "a replay on the page covers at most a day (" + std::to_string(page_replay_window_s)
                             + " s), not " + std::to_string(to_s - from_s)
                             + " s: a shorter window, or `soma health --replay FROM..TO` for a longer one");
    if ((o.to_us - o.from_us) / o.every_us >= page_replay_steps)
      throw api_error(400, "a replay on the page takes at most " + std::to_string(page_replay_steps)
                             + " steps: a shorter window (from, to) or a longer step (every_ms)");
    auto r = health::replay(s, book, o);
    auto out = json::array();
    for (auto& ep : r.episodes)
      out.push_back(json_of(ep));
    return json{{"episodes", std::move(out)},
                {"from_us", r.from_us},
                {"to_us", r.to_us},
                {"last_us", r.last_us},
                {"every_us", r.every_us},
                {"steps", r.steps},
                {"machines", r.machines},
                {"runs", r.runs},
                {"trials", r.trials},
                {"note", "opinions, not facts: the shipped health rules judged at every step of "
                         "the window, as `soma health --replay` does (docs/health.md); nothing "
                         "here is recorded"}};
  });
}

} // namespace soma::web
