#include "soma/web/site.hpp"

#include <algorithm>
#include <charconv>
#include <thread>

#include <httplib.h>

#include "soma/store/trace.hpp"
#include "soma/store/readers.hpp"
#include "soma/store/runs_tally.hpp"
#include "soma/web/api.hpp"
#include "soma/web/assets.hpp"
#include "soma/web/events.hpp"
#include "soma/web/http.hpp"
#include "soma/web/metrics.hpp"

namespace soma::web {

namespace {

using clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

all_params all_params_of(const httplib::Request& req) {
  return {req.params.begin(), req.params.end()};
}

params params_of(const httplib::Request& req) {
  return last_of(all_params_of(req));
}

// Answers with what `f` makes, or with the api_error it throws.
template <class F>
void answer(httplib::Response& res, std::string_view type, F&& f) {
  try {
    if constexpr (std::is_same_v<decltype(f()), json>)
      res.set_content(f().dump(-1, ' ', false, json::error_handler_t::replace), std::string{type});
    else
      res.set_content(f(), std::string{type});
  } catch (const api_error& e) {
    refuse(res, e.status(), e.what());
  } catch (const store_error& e) {
    refuse(res, status_of(e), e.what());
  }
}

constexpr std::string_view json_type = "application/json; charset=utf-8";
constexpr std::string_view svg_type = "image/svg+xml; charset=utf-8";

// What a live stream has sent and waits for.
struct stream {
  live_slot slot;
  std::string run;                  // a run's stream: its forwards; else snapshots
  std::int64_t after = -1;          // the last forward sent
  bool from_end = true;             // no position asked: start at the run's end
  std::uint64_t seen = 0;           // the watch's moves already answered
  bool started = false;
  clock::time_point last_write = clock::now();
  clock::time_point last_snapshot{};
  all_params p;
};

bool write(httplib::DataSink& sink, stream& st, const std::string& text) {
  st.last_write = clock::now();
  return sink.write(text.data(), text.size());
}

// Sends the forwards of st.run after st.after, a page at a time.
bool send_forwards(const store& s, stream& st, httplib::DataSink& sink) {
  while (true) {
    auto from = static_cast<std::uint64_t>(st.after + 1);
    auto page = forwards(s, st.run, from, 1000);
    if (st.from_end) { // the page showed what was there when it loaded
      st.from_end = false;
      st.after = static_cast<std::int64_t>(page.total) - 1;
      return write(sink, st, sse("hello", json{{"total", page.total}}.dump()));
    }
    // One write for the page's events: a fast writer's forwards go out in
    // hundreds a write, not one.
    std::string events;
    std::string data;
    for (auto& r : page.records) {
      data.clear();
      bool ascii = std::all_of(r.summary.begin(), r.summary.end(), [](const field& f) {
        auto v = f.value.text();
        return std::all_of(v.begin(), v.end(), [](unsigned char c) { return c < 0x80; })
               && std::all_of(f.key.begin(), f.key.end(), [](unsigned char c) { return c < 0x80; });
      });
      if (ascii) {
        append_json(data, r, page.total);
      } else { // text that may not be UTF-8: the JSON library replaces what is not
        auto one = json_of(r);
        one["total"] = page.total;
        data = one.dump(-1, ' ', false, json::error_handler_t::replace);
      }
      events += sse("forward", data, std::to_string(r.forward));
    }
    if (!events.empty() && !write(sink, st, events))
      return false;
    if (!page.records.empty())
      st.after = static_cast<std::int64_t>(page.records.back().forward);
    if (page.records.size() < 1000)
      return true;
  }
}

bool send_snapshots(const store& s, runs_tally& tally, stream& st, httplib::DataSink& sink) {
  st.last_snapshot = clock::now();
  auto dumped = [](const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); };
  return write(sink, st, sse("runs", dumped(runs_page(tally.rows(), st.p))))
         && write(sink, st, sse("fleet", dumped(standing_page(s))));
}

// A whole number given as `name` in `p`, or none when it is not given.
std::optional<std::uint64_t> whole_param(const params& p, std::string_view name) {
  auto at = p.find(name);
  if (at == p.end())
    return std::nullopt;
  std::uint64_t x = 0;
  auto& t = at->second;
  auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), x);
  if (ec != std::errc{} || end != t.data() + t.size())
    throw api_error(400, "'" + std::string{name} + "' must be a whole number, not '" + t + "'");
  return x;
}

// /trace: the trace of one forward of ?run=RUN or of its last N, at most
// `cap` bytes (docs/web.md); its headers say when it was cut.
std::string trace_answer(const store& st, const httplib::Request& req, httplib::Response& res,
                         std::size_t cap) {
  auto p = params_of(req);
  auto run = p.find("run");
  if (run == p.end() || run->second.empty())
    throw api_error(400, "/trace needs ?run=RUN (and &forward=N or &last=N; docs/web.md)");
  trace_options o;
  o.forward = whole_param(p, "forward");
  if (auto last = whole_param(p, "last"))
    o.last = static_cast<std::size_t>(*last);
  if (o.forward && o.last)
    throw api_error(400, "a trace is of one forward (forward=N) or of the last N (last=N), not both");
  o.max_bytes = std::min<std::size_t>(cap, whole_param(p, "max_bytes").value_or(cap));
  auto t = answering([&] { return trace_of(st, run->second, o); });
  if (t.cut)
    res.set_header("X-Soma-Trace-Cut", t.note);
  res.set_header("Content-Disposition", "attachment; filename=\"trace.json\"");
  return std::move(t.json);
}

// /metrics: the store's, and this server's live streams.
std::string metrics_text(const store& st, runs_tally& tally, const http_server& http) {
  exposition out;
  store_metrics(st, tally.rows(), out);
  out.family("soma_serve_live_streams", "gauge", "Live pages streaming from this server now.");
  out.sample({}, static_cast<double>(http.live_open()));
  out.family("soma_serve_live_cap", "gauge", "The most live pages this server streams to at once.");
  out.sample({}, static_cast<double>(http.live_cap()));
  return out.text();
}

// One turn of a live stream: its first says how to retry, every other
// waits for the store to move (a second at most) and sends what is new.
// False when the stream ends.
bool send_events(const store& st, runs_tally& tally, store_watch& watch, const http_server& http,
                 stream& me, httplib::DataSink& sink) {
  if (!me.started) {
    me.started = true;
    me.seen = watch.moves(); // before reading: a move after it is read again
    if (!write(sink, me, "retry: 1000\n\n"))
      return false;
  } else {
    auto moves = watch.wait_past(me.seen, 1s);
    if (http.stopping())
      return false;
    // Nothing sent for a second (the store still, or moving only in
    // other runs): a comment, so that a client that went away is
    // noticed (a write fails once the peer has reset) and its place
    // under the cap is freed within about two seconds.
    if (clock::now() - me.last_write >= 1s && !write(sink, me, ":\n\n"))
      return false;
    // A snapshot stream also looks again every 5 s in a still store:
    // a run whose writer died wrote nothing, and comes to stand died.
    bool stale = me.run.empty() && clock::now() - me.last_snapshot >= 5s;
    if (moves == me.seen && !stale)
      return true;
    me.seen = moves;
  }
  try {
    if (!me.run.empty())
      return send_forwards(st, me, sink);
    // Snapshots at most once a second, whatever the writers do.
    auto due = me.last_snapshot + 1s;
    while (clock::now() < due && !http.stopping())
      std::this_thread::sleep_for(std::min<clock::duration>(due - clock::now(), 100ms));
    return !http.stopping() && send_snapshots(st, tally, me, sink);
  } catch (const std::exception& e) {
    return write(sink, me, sse("trouble", json{{"error", e.what()}}.dump(
                                            -1, ' ', false, json::error_handler_t::replace)));
  }
}

// /events: a live stream of the forwards of ?run=RUN, else of the runs
// page's and the fleet's snapshots; refused when the server streams to as
// many as it may, or when what it asks cannot be answered.
void open_events(store* st, runs_tally* tally, store_watch* watch, http_server* http,
                 const httplib::Request& req, httplib::Response& res) {
  auto slot = http->live_slot_for_stream();
  if (!slot)
    return refuse(res, 503, "too many live pages: this server streams to at most "
                              + std::to_string(http->live_cap())
                              + " at once; close one, or start soma serve with a larger --live-cap");
  auto s = std::make_shared<stream>();
  s->slot = std::move(slot);
  s->p = all_params_of(req);
  if (auto run = s->p.find("run"); run != s->p.end())
    s->run = run->second;
  // Where to resume: the browser's Last-Event-ID on a reconnect, else ?after=N.
  auto resume = req.get_header_value("Last-Event-ID");
  if (resume.empty())
    resume = req.get_param_value("after");
  if (!resume.empty()) {
    std::int64_t n = 0;
    auto [end, ec] = std::from_chars(resume.data(), resume.data() + resume.size(), n);
    if (ec != std::errc{} || end != resume.data() + resume.size() || n < -1)
      return refuse(res, 400, "a stream resumes after a forward's number (Last-Event-ID or "
                              "?after=N), not '" + resume + "'");
    s->after = n;
    s->from_end = false;
  }
  if (s->run.empty())
    try { // a query the runs page cannot ask is refused now, not every second
      (void)run_query_of(s->p);
    } catch (const api_error& e) {
      return refuse(res, e.status(), e.what());
    }
  else
    try {
      (void)forwards(*st, s->run, 0, 0); // an unknown run is refused now, not mid-stream
    } catch (const store_error& e) {
      return refuse(res, status_of(e), e.what());
    }
  res.set_header("Cache-Control", "no-store");
  res.set_header("X-Accel-Buffering", "no");
  res.set_chunked_content_provider(
    "text/event-stream", [s, st, tally, watch, http](std::size_t, httplib::DataSink& sink) {
      return send_events(*st, *tally, *watch, *http, *s, sink);
    });
}

// The page (one for every path the browser shows), its script and its style.
void add_page(httplib::Server& r) {
  auto page = [](const httplib::Request&, httplib::Response& res) {
    res.set_content(std::string{assets::page_html}, "text/html; charset=utf-8");
  };
  r.Get(R"(/|/run/[^/]+|/run/[^/]+/forward/\d+|/run/[^/]+/compare/[^/]+|/fleet|/trials|/trials/[^/]+|/health)", page);
  r.Get("/soma.js", [](const httplib::Request&, httplib::Response& res) {
    res.set_content(std::string{assets::soma_js}, "text/javascript; charset=utf-8");
  });
  r.Get("/soma.css", [](const httplib::Request&, httplib::Response& res) {
    res.set_content(std::string{assets::soma_css}, "text/css; charset=utf-8");
  });
}

// The JSON API (and the curves and charts it points to), read from `st`.
void add_api(httplib::Server& r, store* st, runs_tally* tally) {
  r.Get("/api/runs", [tally](const httplib::Request& req, httplib::Response& res) {
    answer(res, json_type, [&] { return runs_page(tally->rows(), all_params_of(req)); });
  });
  r.Get("/api/store", [st, tally](const httplib::Request&, httplib::Response& res) {
    answer(res, json_type, [&] { return store_page(*st, tally->rows()); });
  });
  r.Get(R"(/api/run/([^/]+))", [st](const httplib::Request& req, httplib::Response& res) {
    answer(res, json_type, [&] { return run_page(*st, req.matches[1].str()); });
  });
  r.Get(R"(/api/run/([^/]+)/forwards)", [st](const httplib::Request& req, httplib::Response& res) {
    answer(res, json_type, [&] { return forwards_page(*st, req.matches[1].str(), params_of(req)); });
  });
  r.Get(R"(/api/run/([^/]+)/forward/(\d+))", [st](const httplib::Request& req, httplib::Response& res) {
    answer(res, json_type, [&] {
      std::uint64_t n = 0;
      auto text = req.matches[2].str();
      auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
      if (ec != std::errc{})
        throw api_error(400, "forward '" + text + "' is not a forward's number");
      return forward_page(*st, req.matches[1].str(), n);
    });
  });
  r.Get(R"(/api/run/([^/]+)/curve)", [st](const httplib::Request& req, httplib::Response& res) {
    answer(res, json_type, [&] { return curve_page(*st, req.matches[1].str(), params_of(req)); });
  });
  r.Get(R"(/api/run/([^/]+)/curve\.svg)", [st](const httplib::Request& req, httplib::Response& res) {
    answer(res, svg_type, [&] { return curve_svg(*st, req.matches[1].str(), params_of(req)); });
  });
  r.Get(R"(/api/run/([^/]+)/curve\.png)", [st](const httplib::Request& req, httplib::Response& res) {
    answer(res, "image/png", [&] { return curve_png(*st, req.matches[1].str(), params_of(req)); });
  });
  r.Get(R"(/api/run/([^/]+)/curve\.csv)", [st](const httplib::Request& req, httplib::Response& res) {
    answer(res, "text/csv; charset=utf-8",
           [&] { return curve_csv(*st, req.matches[1].str(), params_of(req)); });
  });
  r.Get(R"(/api/run/([^/]+)/compare/([^/]+))", [st](const httplib::Request& req, httplib::Response& res) {
    answer(res, json_type, [&] { return compare_page(*st, req.matches[1].str(), req.matches[2].str()); });
  });
  r.Get(R"(/api/run/([^/]+)/spent\.svg)", [st](const httplib::Request& req, httplib::Response& res) {
    answer(res, svg_type, [&] { return spent_svg(*st, req.matches[1].str(), params_of(req)); });
  });
  r.Get(R"(/api/run/([^/]+)/machines\.svg)", [st](const httplib::Request& req, httplib::Response& res) {
    answer(res, svg_type, [&] { return machines_svg(*st, req.matches[1].str()); });
  });
  r.Get(R"(/api/run/([^/]+)/nodes)", [st](const httplib::Request& req, httplib::Response& res) {
    answer(res, json_type, [&] { return nodes_page(*st, req.matches[1].str(), params_of(req)); });
  });
  r.Get(R"(/api/run/([^/]+)/critical)", [st](const httplib::Request& req, httplib::Response& res) {
    answer(res, json_type, [&] { return critical_page(*st, req.matches[1].str(), params_of(req)); });
  });
  r.Get(R"(/api/run/([^/]+)/fleet)", [st](const httplib::Request& req, httplib::Response& res) {
    answer(res, json_type, [&] { return fleet_page(*st, req.matches[1].str()); });
  });
  r.Get("/api/fleet", [st](const httplib::Request&, httplib::Response& res) {
    answer(res, json_type, [&] { return standing_page(*st); });
  });
  r.Get("/api/trials", [st](const httplib::Request&, httplib::Response& res) {
    answer(res, json_type, [&] { return studies_page(*st); });
  });
  r.Get(R"(/api/trials/([^/]+))", [st](const httplib::Request& req, httplib::Response& res) {
    answer(res, json_type, [&] { return study_page(*st, req.matches[1].str()); });
  });
  r.Get(R"(/api/trials/([^/]+)/figure\.svg)", [st](const httplib::Request& req, httplib::Response& res) {
    answer(res, svg_type, [&] { return study_svg(*st, req.matches[1].str(), params_of(req)); });
  });
  r.Get("/api/health", [st](const httplib::Request& req, httplib::Response& res) {
    answer(res, json_type, [&] { return health_page(*st, params_of(req)); });
  });
  r.Get("/api/health/replay", [st](const httplib::Request& req, httplib::Response& res) {
    answer(res, json_type, [&] { return health_replay_page(*st, params_of(req)); });
  });
}

} // namespace

site::site(http_server& server, store s, const site_options& options)
  : store_(std::move(s)),
    tally_(std::make_unique<runs_tally>(store_)),
    watch_(std::make_unique<store_watch>(
      store_, store_.path().starts_with("soma://") ? std::max(options.watch_every, 250ms)
                                                    : options.watch_every)) {
  auto& r = server.routes();
  auto* st = &store_;
  auto* tally = tally_.get();
  auto* watch = watch_.get();
  auto* http = &server;
  add_page(r);
  add_api(r, st, tally);
  auto cap = options.trace_max_bytes;
  r.Get("/trace", [st, cap](const httplib::Request& req, httplib::Response& res) {
    answer(res, json_type, [&] { return trace_answer(*st, req, res, cap); });
  });
  r.Get("/metrics", [st, tally, http](const httplib::Request&, httplib::Response& res) {
    answer(res, exposition::content_type, [&] { return metrics_text(*st, *tally, *http); });
  });
  r.Get("/events", [st, tally, watch, http](const httplib::Request& req, httplib::Response& res) {
    open_events(st, tally, watch, http, req, res);
  });

  r.set_error_handler([](const httplib::Request& req, httplib::Response& res) {
    if (res.status == 404 && res.body.empty())
      refuse(res, 404, "nothing at " + req.path
                         + ": the pages are /, /run/RUN, /run/A/compare/B, /fleet, /trials and /health, the JSON "
                           "API is under /api/ (docs/web.md)");
  });
}

site::~site() {
  stop();
}

void site::stop() {
  watch_->stop();
}

} // namespace soma::web
