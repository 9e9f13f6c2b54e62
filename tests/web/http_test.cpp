// soma serve's server over real sockets: the API as the readers answer it,
// live streams that resume where they stopped, the cap on them, metrics in
// Prometheus' format, traces, errors, and stopping within its bound.

#include <boost/test/unit_test.hpp>

#include <chrono>
#include <fstream>
#include <iterator>
#include <regex>
#include <set>
#include <thread>

#include <httplib.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "child.hpp"
#include "making.hpp"
#include "scratch.hpp"
#include "soma/store/trace.hpp"
#include "soma/store/readers.hpp"
#include "soma/web/api.hpp"
#include "soma/web/http.hpp"
#include "soma/web/metrics.hpp"
#include "soma/web/site.hpp"

using namespace soma::web;
using namespace std::chrono_literals;
using clock_type = std::chrono::steady_clock;

namespace {

// A server over a store, serving on its own thread.
struct served {
  soma_test::scratch dir;
  soma::store s{dir / "store"};
  std::unique_ptr<http_server> server;
  std::unique_ptr<site> pages;
  std::thread thread;

  explicit served(std::size_t live_cap = 4) {
    soma_test::make_store(s);
    http_options o;
    o.listen = "127.0.0.1:0";
    o.live_cap = live_cap;
    o.threads = live_cap + 4;
    server = std::make_unique<http_server>(o);
    pages = std::make_unique<site>(*server, s);
    thread = std::thread{[this] { server->run(); }};
  }
  ~served() {
    stop();
  }
  void stop() {
    if (thread.joinable()) {
      pages->stop();
      server->stop();
      thread.join();
    }
  }
  httplib::Client client() const {
    httplib::Client c{"127.0.0.1", server->port()};
    c.set_connection_timeout(5);
    c.set_read_timeout(10);
    return c;
  }
};

// A live stream read off a raw socket: its status and its events, each read
// with a deadline.
class stream_client {
public:
  struct event {
    std::string type, id, data;
  };

  stream_client(int port, const std::string& target, const std::string& last_event_id = "") {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<std::uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    BOOST_REQUIRE(::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
    std::string req = "GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n";
    if (!last_event_id.empty())
      req += "Last-Event-ID: " + last_event_id + "\r\n";
    req += "\r\n";
    BOOST_REQUIRE(::send(fd_, req.data(), req.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(req.size()));
  }
  ~stream_client() { ::close(fd_); }

  /// The status line's code, read within `within`.
  int status(std::chrono::milliseconds within = 5s) {
    while (buffer_.find("\r\n\r\n") == std::string::npos)
      if (!more(within))
        return 0;
    auto head_end = buffer_.find("\r\n\r\n");
    head_ = buffer_.substr(0, head_end);
    buffer_.erase(0, head_end + 4);
    return std::stoi(head_.substr(9, 3));
  }

  const std::string& head() const { return head_; }

  /// Everything after the head so far (a refusal's body, or chunks).
  std::string rest(std::chrono::milliseconds within = 2s) {
    more(within);
    return buffer_ + raw_;
  }

  /// The next event (comments and `retry:` skipped), or nullopt at the deadline.
  std::optional<event> next(std::chrono::milliseconds within = 5s) {
    auto by = clock_type::now() + within;
    for (;;) {
      if (auto e = parse())
        return e;
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(by - clock_type::now());
      if (left.count() <= 0 || !more(left))
        return std::nullopt;
    }
  }

private:
  // Reads what came within `within`: into the head until it is whole, then
  // into the body, the chunks' sizes stripped.
  bool more(std::chrono::milliseconds within) {
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(within.count())) <= 0)
      return false;
    char buf[65536];
    auto n = ::recv(fd_, buf, sizeof buf, 0);
    if (n <= 0)
      return false;
    (head_.empty() ? buffer_ : raw_).append(buf, static_cast<std::size_t>(n));
    dechunk();
    return true;
  }

  void dechunk() {
    if (head_.find("Transfer-Encoding: chunked") == std::string::npos)
      return; // a refusal: its body as it is
    for (;;) {
      auto nl = raw_.find("\r\n");
      if (nl == std::string::npos)
        return;
      auto size = std::stoul(raw_.substr(0, nl), nullptr, 16);
      if (raw_.size() < nl + 2 + size + 2)
        return;
      body_ += raw_.substr(nl + 2, size);
      raw_.erase(0, nl + 2 + size + 2);
    }
  }

  std::optional<event> parse() {
    if (!buffer_.empty() && !head_.empty()) { // what came with the head
      raw_ = buffer_ + raw_;
      buffer_.clear();
      dechunk();
    }
    for (;;) {
      auto end = body_.find("\n\n");
      if (end == std::string::npos)
        return std::nullopt;
      auto block = body_.substr(0, end);
      body_.erase(0, end + 2);
      event e;
      std::size_t at = 0;
      while (at <= block.size()) {
        auto nl = block.find('\n', at);
        auto line = block.substr(at, nl == std::string::npos ? std::string::npos : nl - at);
        at = nl == std::string::npos ? block.size() + 1 : nl + 1;
        if (line.starts_with("event: "))
          e.type = line.substr(7);
        else if (line.starts_with("id: "))
          e.id = line.substr(4);
        else if (line.starts_with("data: "))
          e.data += line.substr(6);
      }
      if (!e.type.empty())
        return e;
    }
  }

  int fd_ = -1;
  std::string raw_, buffer_, body_, head_;
};

// Every line of a Prometheus text exposition is a HELP, a TYPE or a sample
// of a family TYPE declared; returns what was wrong, or "" when all is well.
std::string prometheus_problem(const std::string& text) {
  static const std::regex help{R"(# HELP ([a-zA-Z_:][a-zA-Z0-9_:]*) .*)"};
  static const std::regex type{R"(# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|untyped|histogram|summary))"};
  static const std::regex sample{
    R"(([a-zA-Z_:][a-zA-Z0-9_:]*)(\{([a-zA-Z_][a-zA-Z0-9_]*="([^"\\]|\\.)*"(,[a-zA-Z_][a-zA-Z0-9_]*="([^"\\]|\\.)*")*)?\})? (-?[0-9.eE+-]+|NaN|\+Inf|-Inf))"};
  std::set<std::string> declared;
  std::size_t at = 0, n = 0;
  while (at < text.size()) {
    auto nl = text.find('\n', at);
    if (nl == std::string::npos)
      return "the last line has no newline";
    auto line = text.substr(at, nl - at);
    at = nl + 1;
    ++n;
    std::smatch m;
    if (std::regex_match(line, m, type))
      declared.insert(m[1]);
    else if (std::regex_match(line, m, help))
      continue;
    else if (std::regex_match(line, m, sample)) {
      if (!declared.count(m[1]))
        return "line " + std::to_string(n) + " is a sample of an undeclared family: " + line;
    } else
      return "line " + std::to_string(n) + " is not the text format: " + line;
  }
  return declared.empty() ? "no family" : "";
}

} // namespace

BOOST_AUTO_TEST_SUITE(http)

BOOST_AUTO_TEST_CASE(every_api_answer_is_what_the_api_functions_say) {
  served x;
  auto c = x.client();
  auto check = [&](const std::string& path, const json& expected) {
    auto res = c.Get(path);
    BOOST_REQUIRE_MESSAGE(res, path << ": no answer");
    BOOST_TEST(res->status == 200, path << ": " << res->body);
    BOOST_TEST(res->get_header_value("Content-Type") == "application/json; charset=utf-8");
    BOOST_TEST(json::parse(res->body) == expected, path);
  };
  check("/api/runs?limit=1", runs_page(x.s, {{"limit", "1"}}));
  // A repeated parameter counts every time it is given.
  check("/api/runs?status=unknown&status=running&status=finished&sort=run&reverse=1&prefix=sweep",
        runs_page(x.s, {{"status", "unknown"}, {"status", "running"}, {"status", "finished"},
                        {"sort", "run"}, {"reverse", "1"}, {"prefix", "sweep"}}));
  check("/api/run/sweep-a", run_page(x.s, "sweep-a"));
  check("/api/run/sweep-a/forwards?offset=-5", forwards_page(x.s, "sweep-a", {{"offset", "-5"}}));
  check("/api/run/sweep-a/forward/3", forward_page(x.s, "sweep-a", 3));
  check("/api/run/sweep-a/curve?points=100", curve_page(x.s, "sweep-a", {{"points", "100"}}));
  check("/api/run/sweep-a/nodes", nodes_page(x.s, "sweep-a", {}));
  check("/api/fleet", standing_page(x.s));
  check("/api/trials", studies_page(x.s));
  check("/api/trials/lr", study_page(x.s, "lr"));

  auto moved = c.Get("/api/store");
  BOOST_REQUIRE(moved);
  auto expected = store_page(x.s, soma::runs(x.s));
  auto answered = json::parse(moved->body);
  BOOST_TEST(answered["newest_write_us"] == expected["newest_write_us"], moved->body);
  BOOST_TEST(answered["silent_after_s"] == expected["silent_after_s"], moved->body);

  auto svg = c.Get("/api/run/sweep-a/curve.svg?from=5&to=50");
  BOOST_REQUIRE(svg);
  BOOST_TEST(svg->get_header_value("Content-Type") == "image/svg+xml; charset=utf-8");
  BOOST_TEST(svg->body == curve_svg(x.s, "sweep-a", {{"from", "5"}, {"to", "50"}}));

  auto page = c.Get("/run/sweep-a");
  BOOST_REQUIRE(page);
  BOOST_TEST(page->get_header_value("Content-Type") == "text/html; charset=utf-8");
  BOOST_TEST(page->body.find("<script src=\"/soma.js\">") != std::string::npos);
  BOOST_TEST(page->body.find("http") == page->body.find("http-equiv")); // nothing from elsewhere
  auto js = c.Get("/soma.js");
  BOOST_REQUIRE(js);
  BOOST_TEST(js->body.find("EventSource") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(errors_say_what_was_wrong_with_their_status) {
  served x;
  auto c = x.client();
  auto res = c.Get("/api/run/nope");
  BOOST_REQUIRE(res);
  BOOST_TEST(res->status == 404);
  BOOST_TEST(res->body.find("no run 'nope'") == 0u);
  res = c.Get("/api/runs?limit=many");
  BOOST_REQUIRE(res);
  BOOST_TEST(res->status == 400);
  BOOST_TEST(res->body == "'limit' must be a whole number from 1 to 1000, not 'many'\n");
  res = c.Get("/nowhere");
  BOOST_REQUIRE(res);
  BOOST_TEST(res->status == 404);
  BOOST_TEST(res->body.find("nothing at /nowhere: the pages are /") == 0u);
  res = c.Get("/trace?run=sweep-a&forward=1&last=2");
  BOOST_REQUIRE(res);
  BOOST_TEST(res->status == 400);
  res = c.Get("/events?run=nope");
  BOOST_REQUIRE(res);
  BOOST_TEST(res->status == 404);
  // A status no run can stand: named, on the API and on the runs page's stream.
  for (auto path : {"/api/runs?status=running&status=bogus", "/events?status=bogus"}) {
    res = c.Get(path);
    BOOST_REQUIRE(res);
    BOOST_TEST(res->status == 400, path);
    BOOST_TEST(res->body.starts_with("status bogus: a run stands running, finished, died or unknown"),
               path << ": " << res->body);
  }
}

BOOST_AUTO_TEST_CASE(beyond_loopback_it_needs_tls_and_says_so) {
  http_options o;
  o.listen = "0.0.0.0:0";
  try {
    http_server refused{o};
    BOOST_FAIL("it listened beyond loopback without TLS");
  } catch (const http_error& e) {
    BOOST_TEST(std::string{e.what()}.find("refusing to listen on 0.0.0.0:0 without TLS") != std::string::npos);
    BOOST_TEST(std::string{e.what()}.find("--tls-cert and --tls-key") != std::string::npos);
  }
  o.tls_cert = "/nonexistent/cert.pem";
  try {
    http_server refused{o};
    BOOST_FAIL("it took TLS files that are not there");
  } catch (const http_error& e) {
    BOOST_TEST(std::string{e.what()}.find("both --tls-cert and --tls-key") != std::string::npos);
  }
  o.tls_key = "/nonexistent/key.pem";
  try {
    http_server refused{o};
    BOOST_FAIL("it took TLS files that are not there");
  } catch (const http_error& e) {
    BOOST_TEST(std::string{e.what()} == "cannot read '/nonexistent/cert.pem': no such file");
  }
  o = {};
  o.listen = "127.0.0.1:http";
  BOOST_CHECK_THROW(http_server{o}, http_error);
}

BOOST_AUTO_TEST_CASE(a_port_another_server_holds_is_refused) {
  served x;
  http_options o;
  o.listen = "127.0.0.1:" + std::to_string(x.server->port());
  try {
    http_server second{o};
    BOOST_FAIL("a second server bound the port the first serves");
  } catch (const http_error& e) {
    BOOST_TEST(std::string{e.what()}.find("cannot listen on " + o.listen) == 0u);
  }
}

BOOST_AUTO_TEST_CASE(the_soma_command_refuses_beyond_loopback_without_tls_at_once) {
  soma_test::scratch dir;
  {
    soma::store s{dir / "store"};
    soma_test::make_store(s);
  }
  auto began = clock_type::now();
  soma_test::child serve{{SOMA_CLI, "serve", "--store", dir / "store", "--listen", "0.0.0.0:0"}};
  auto status = serve.wait();
  BOOST_TEST((clock_type::now() - began < 10s));
  BOOST_TEST(WIFEXITED(status));
  BOOST_TEST(WEXITSTATUS(status) == 2);
}

BOOST_AUTO_TEST_CASE(a_run_stream_sends_each_new_forward_once_and_resumes_after_the_last_id) {
  served x;
  // Resuming after forward 244: 245 to 249 come first, ids their numbers.
  stream_client a{x.server->port(), "/events?run=sweep-a&after=244"};
  BOOST_REQUIRE_EQUAL(a.status(), 200);
  BOOST_TEST(a.head().find("text/event-stream") != std::string::npos);
  std::vector<std::string> ids;
  for (int i = 0; i < 5; ++i) {
    auto e = a.next();
    BOOST_REQUIRE(e);
    BOOST_TEST(e->type == "forward");
    ids.push_back(e->id);
    BOOST_TEST(json::parse(e->data)["total"] == 250);
  }
  BOOST_TEST(ids == (std::vector<std::string>{"245", "246", "247", "248", "249"}));

  // New forwards reach it as they are written.
  soma_test::append(x.s, "sweep-a", 250, 10);
  for (std::uint64_t n = 250; n < 260; ++n) {
    auto e = a.next();
    BOOST_REQUIRE_MESSAGE(e, "forward " << n << " did not arrive within 5 s");
    BOOST_TEST(e->id == std::to_string(n));
    auto r = json::parse(e->data);
    BOOST_TEST(r["forward"] == n);
    BOOST_TEST(r["total"].get<std::uint64_t>() >= n + 1);
  }

  // Written while no stream was open, they come on a reconnect that gives
  // the last id it had: none missed, none twice.
  soma_test::append(x.s, "sweep-a", 260, 1500);
  stream_client b{x.server->port(), "/events?run=sweep-a", "259"};
  BOOST_REQUIRE_EQUAL(b.status(), 200);
  for (std::uint64_t n = 260; n < 1760; ++n) {
    auto e = b.next();
    BOOST_REQUIRE_MESSAGE(e, "forward " << n << " did not arrive");
    BOOST_REQUIRE_EQUAL(e->id, std::to_string(n));
  }
  BOOST_TEST(!b.next(300ms)); // and nothing after the last

  // A stream with no position starts at the end: it says how many there are.
  stream_client c{x.server->port(), "/events?run=sweep-b"};
  BOOST_REQUIRE_EQUAL(c.status(), 200);
  auto hello = c.next();
  BOOST_REQUIRE(hello);
  BOOST_TEST(hello->type == "hello");
  BOOST_TEST(json::parse(hello->data)["total"] == 30);
  soma_test::append(x.s, "sweep-b", 30, 1);
  auto next = c.next();
  BOOST_REQUIRE(next);
  BOOST_TEST(next->id == "30");
}

BOOST_AUTO_TEST_CASE(the_store_stream_sends_runs_and_the_fleet_as_they_change) {
  served x;
  stream_client a{x.server->port(), "/events?limit=5"};
  BOOST_REQUIRE_EQUAL(a.status(), 200);
  auto runs = a.next();
  BOOST_REQUIRE(runs);
  BOOST_TEST(runs->type == "runs");
  BOOST_TEST(json::parse(runs->data) == runs_page(x.s, {{"limit", "5"}}));
  auto fleet = a.next();
  BOOST_REQUIRE(fleet);
  BOOST_TEST(fleet->type == "fleet");
  BOOST_TEST(json::parse(fleet->data) == standing_page(x.s));
  soma_test::append(x.s, "sweep-c", 0, 3);
  auto later = a.next(5s);
  BOOST_REQUIRE(later);
  BOOST_TEST(later->type == "runs");
  BOOST_TEST(json::parse(later->data)["total"] == 3);
}

BOOST_AUTO_TEST_CASE(past_the_cap_a_stream_is_refused_with_503_and_why) {
  served x{2};
  stream_client a{x.server->port(), "/events"};
  stream_client b{x.server->port(), "/events"};
  BOOST_REQUIRE_EQUAL(a.status(), 200);
  BOOST_REQUIRE_EQUAL(b.status(), 200);
  stream_client c{x.server->port(), "/events"};
  BOOST_REQUIRE_EQUAL(c.status(), 503);
  BOOST_TEST(c.rest().find("too many live pages: this server streams to at most 2 at once") != std::string::npos);
  // Pages still load while the streams hold their threads.
  auto res = x.client().Get("/api/runs");
  BOOST_REQUIRE(res);
  BOOST_TEST(res->status == 200);
  auto metrics = x.client().Get("/metrics");
  BOOST_REQUIRE(metrics);
  BOOST_TEST(metrics->body.find("soma_serve_live_streams 2\n") != std::string::npos);
}

// A page closed frees its place under the cap within about two seconds, even
// while the store keeps moving in other runs (its stream then has nothing of
// its own to write, and once wrote nothing at all, holding the place for as
// long as anyone recorded).
BOOST_AUTO_TEST_CASE(a_closed_page_frees_its_place_while_other_runs_are_written) {
  served x{1};
  auto open_streams = [&] {
    auto m = x.client().Get("/metrics");
    BOOST_REQUIRE(m);
    auto at = m->body.find("\nsoma_serve_live_streams ");
    BOOST_REQUIRE(at != std::string::npos);
    return std::stoi(m->body.substr(at + 25));
  };
  {
    stream_client page{x.server->port(), "/events?run=sweep-b"};
    BOOST_REQUIRE_EQUAL(page.status(), 200);
    BOOST_REQUIRE(page.next()); // hello: the stream is open
    BOOST_REQUIRE_EQUAL(open_streams(), 1);
  } // the page is closed
  auto closed = clock_type::now();
  std::uint64_t n = 250;
  int open = 1;
  // Until the server says so: each look writes a forward of sweep-a first
  // (the store moves; sweep-b does not), its commit and the request pacing
  // the loop.
  while (open > 0 && clock_type::now() - closed < 6s) {
    soma_test::append(x.s, "sweep-a", n++, 1);
    open = open_streams();
  }
  BOOST_TEST(open == 0);
  // About 2 s: the first write after the peer closed still succeeds (the
  // peer answers it with a reset), the next one fails; 5 s leaves room for a
  // loaded machine.
  BOOST_TEST((clock_type::now() - closed < 5s));
  stream_client next{x.server->port(), "/events?run=sweep-b"};
  BOOST_TEST(next.status() == 200);
}

BOOST_AUTO_TEST_CASE(it_stops_within_two_seconds_with_streams_open) {
  served x;
  stream_client a{x.server->port(), "/events?run=sweep-a"};
  stream_client b{x.server->port(), "/events"};
  BOOST_REQUIRE_EQUAL(a.status(), 200);
  BOOST_REQUIRE_EQUAL(b.status(), 200);
  BOOST_REQUIRE(a.next());
  auto began = clock_type::now();
  x.stop();
  BOOST_TEST((clock_type::now() - began < 2s));
}

BOOST_AUTO_TEST_CASE(a_client_that_stopped_reading_holds_a_stop_no_longer_than_the_write_timeout) {
  served x;
  // A page that stopped reading (a frozen tab, a SIGSTOPped browser): the
  // server writes until the socket's buffers are full and its write blocks.
  stream_client frozen{x.server->port(), "/events?run=sweep-a&after=-1"};
  BOOST_REQUIRE_EQUAL(frozen.status(), 200);
  soma_test::append(x.s, "sweep-a", 250, 60'000); // ~10 MB of events, more than loopback buffers
  // Its stream holds its place while the server's write waits on it.
  BOOST_REQUIRE_EQUAL(x.server->live_open(), 1u);
  auto began = clock_type::now();
  x.stop();
  auto took = clock_type::now() - began;
  BOOST_TEST((took < 7s), "stop took " << std::chrono::duration<double>(took).count() << " s");
  BOOST_TEST_MESSAGE("stopped in " << std::chrono::duration<double>(took).count() << " s with a client that stopped reading");
}

BOOST_AUTO_TEST_CASE(metrics_parse_as_prometheus_text_and_count_what_the_readers_count) {
  served x;
  auto res = x.client().Get("/metrics");
  BOOST_REQUIRE(res);
  BOOST_TEST(res->status == 200);
  BOOST_TEST(res->get_header_value("Content-Type") == std::string{exposition::content_type});
  BOOST_TEST(prometheus_problem(res->body) == "");
  BOOST_TEST(res->body.find("soma_runs 2\n") != std::string::npos);
  BOOST_TEST(res->body.find("soma_run_forwards{run=\"sweep-a\"} 250\n") != std::string::npos);
  BOOST_TEST(res->body.find("soma_run_broke{run=\"sweep-a\"} 25\n") != std::string::npos);
  BOOST_TEST(res->body.find("soma_machine_quiet_seconds{machine=\"host-2\"} 2.5\n") != std::string::npos);
  BOOST_TEST(res->body.find("soma_machine_served{machine=\"host-1\"} 7\n") != std::string::npos);

  exposition e;
  e.family("x_total", "counter", "a help with a \\ and\na newline");
  e.sample({{"l", "a \"q\" \\ \n"}}, 1.5);
  e.sample({}, std::numeric_limits<double>::infinity());
  BOOST_TEST(e.text() == "# HELP x_total a help with a \\\\ and\\na newline\n# TYPE x_total counter\n"
                         "x_total{l=\"a \\\"q\\\" \\\\ \\n\"} 1.5\nx_total +Inf\n");
  BOOST_TEST(prometheus_problem(e.text()) == "");
  BOOST_TEST(prometheus_problem("x 1\n") != "");
}

BOOST_AUTO_TEST_CASE(the_trace_is_draws_and_names_its_cut) {
  served x;
  auto res = x.client().Get("/trace?run=sweep-a&last=5");
  BOOST_REQUIRE(res);
  BOOST_TEST(res->status == 200);
  BOOST_TEST(res->body == soma::trace_of(x.s, "sweep-a", {.last = 5}).json);
  auto t = json::parse(res->body);
  BOOST_TEST(t.contains("traceEvents"));
  auto cut = x.client().Get("/trace?run=sweep-a&last=200&max_bytes=20000");
  BOOST_REQUIRE(cut);
  BOOST_TEST(cut->status == 200);
  BOOST_TEST(cut->body.size() <= 20000u);
  BOOST_TEST(!cut->get_header_value("X-Soma-Trace-Cut").empty());
}

BOOST_AUTO_TEST_CASE(a_store_another_host_serves_is_served_and_followed_live) {
  soma_test::scratch dir;
  soma::store s{dir / "served"};
  soma_test::make_store(s);
  soma_test::child node{{SOMA_NODE_PROGRAM, "--serve-store", dir / "served"}};
  auto node_port = node.line(15s);
  BOOST_REQUIRE_MESSAGE(node_port, "the soma-node printed no port within 15 s");
  soma_test::child serve{{SOMA_CLI, "serve", "--store", "soma://127.0.0.1:" + *node_port, "--listen",
                          "127.0.0.1:0"}};
  auto url = serve.line(15s);
  BOOST_REQUIRE_MESSAGE(url && url->starts_with("http://127.0.0.1:"), "soma serve printed no URL");
  auto port = std::stoi(url->substr(url->rfind(':') + 1));
  httplib::Client c{"127.0.0.1", port};
  c.set_read_timeout(10);
  auto res = c.Get("/api/runs");
  BOOST_REQUIRE(res);
  BOOST_TEST(res->status == 200, res->body);
  BOOST_TEST(json::parse(res->body) == runs_page(s, {}));
  // Written on the serving host, it reaches the page through the served
  // store's answers: the page's events look again every 250 ms, and each
  // look asks the server.
  stream_client live{port, "/events?run=sweep-b&after=29"};
  BOOST_REQUIRE_EQUAL(live.status(), 200);
  soma_test::append(s, "sweep-b", 30, 3);
  for (std::uint64_t n = 30; n < 33; ++n) {
    auto e = live.next(10s);
    BOOST_REQUIRE_MESSAGE(e, "forward " << n << " did not arrive within 10 s");
    BOOST_TEST(e->id == std::to_string(n));
  }
  // The runs page reads the served store's new copy too.
  res = c.Get("/api/runs");
  BOOST_REQUIRE(res);
  BOOST_TEST(json::parse(res->body) == runs_page(s, {}));
  BOOST_TEST(json::parse(res->body)["runs"][1]["forwards"] == 33);
  // The serving host gone: a request is answered 503, saying so, within two
  // of the served store's 5 s call bounds (the store watch's own call may
  // hold the copy's lock when it starts; a killed process refuses at once).
  node.kill(SIGKILL);
  (void)node.wait();
  auto began = clock_type::now();
  res = c.Get("/api/runs");
  BOOST_REQUIRE(res);
  BOOST_TEST((clock_type::now() - began < 11s));
  BOOST_TEST(res->status == 503, res->body);
  BOOST_TEST(res->body.find("the served store soma://127.0.0.1:" + *node_port) == 0u, res->body);
  serve.kill(SIGTERM);
  BOOST_TEST(WIFEXITED(serve.wait()));
}

BOOST_AUTO_TEST_CASE(soma_trace_writes_the_file_and_says_when_its_cap_cut) {
  soma_test::scratch dir;
  soma::store s{dir / "store"};
  soma_test::make_store(s);
  auto read = [](const std::string& path) {
    std::ifstream in{path, std::ios::binary};
    return std::string{std::istreambuf_iterator<char>{in}, {}};
  };
  soma_test::child whole{{SOMA_CLI, "trace", "sweep-a", "--last", "5", "-o", dir / "t.json", "--store",
                          dir / "store"}};
  auto said = whole.line(10s);
  BOOST_REQUIRE(said);
  BOOST_TEST(said->find("wrote 5 forwards of run 'sweep-a' (") == 0u, *said);
  BOOST_TEST(WEXITSTATUS(whole.wait()) == 0);
  BOOST_TEST(read(dir / "t.json") == soma::trace_of(s, "sweep-a", {.last = 5}).json);

  // Cut: fewer forwards, a file under the cap; the child's stderr is this
  // test's, so the cut is read from the trace itself.
  soma_test::child cut{{SOMA_CLI, "trace", "sweep-a", "--last", "200", "--max-bytes", "20000", "-o",
                        dir / "cut.json", "--store", dir / "store"}};
  said = cut.line(10s);
  BOOST_REQUIRE(said);
  BOOST_TEST(WEXITSTATUS(cut.wait()) == 0);
  auto text = read(dir / "cut.json");
  BOOST_TEST(text.size() <= 20000u);
  auto t = json::parse(text);
  BOOST_TEST(t["otherData"].contains("cut"));
  BOOST_TEST(said->find("wrote 200 forwards") == std::string::npos, *said);

  soma_test::child both{{SOMA_CLI, "trace", "sweep-a", "--last", "2", "--forward", "1", "-o",
                         dir / "x.json", "--store", dir / "store"}};
  BOOST_TEST(WEXITSTATUS(both.wait()) == 2);
  soma_test::child unknown{{SOMA_CLI, "trace", "nope", "-o", dir / "x.json", "--store", dir / "store"}};
  BOOST_TEST(WEXITSTATUS(unknown.wait()) == 2);
}

BOOST_AUTO_TEST_SUITE_END()
