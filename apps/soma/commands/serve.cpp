#include "commands/serve.hpp"

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <memory>
#include <ostream>
#include <string>
#include <thread>

#include <poll.h>
#include <unistd.h>

#include <CLI/CLI.hpp>

#include "count.hpp"
#include "soma/web/http.hpp"
#include "soma/web/site.hpp"
#include "stop_signals.hpp"
#include "usage_error.hpp"

namespace soma::cli {

namespace {

// A thread of ours waits for a stop signal and stops the server, whatever
// thread the signal landed on.
class stop_on_signals {
public:
  explicit stop_on_signals(web::http_server& server) {
    catch_stop_signals();
    thread_ = std::thread{[this, &server] {
      pollfd p{stop_fd(), POLLIN, 0};
      while (!done_)
        if (::poll(&p, 1, 200) == 1) {
          server.stop();
          return;
        }
    }};
  }
  ~stop_on_signals() {
    done_ = true;
    thread_.join();
  }
  stop_on_signals(const stop_on_signals&) = delete;
  stop_on_signals& operator=(const stop_on_signals&) = delete;

private:
  std::atomic<bool> done_{false};
  std::thread thread_;
};

} // namespace

finish add_serve(command_line& line) {
  auto& inv = line.inv;
  auto* serve = line.app.add_subcommand(
    "serve", "a web page of the store's runs, the fleet, trials and opinions, live; its JSON "
             "API, traces and Prometheus metrics (docs/web.md); prints its URL first");
  serve->add_option("--listen", inv.listen,
                    "HOST:PORT (default 127.0.0.1:8080); port 0 takes a free one; beyond "
                    "loopback only with --tls-cert and --tls-key")
    ->option_text("HOST:PORT");
  serve->add_option("--tls-cert", inv.tls_cert,
                    "the server's certificate (PEM), for HTTPS; a browser matches its "
                    "subjectAltName (soma-certs issue DIR NAME --host HOST)")
    ->option_text("FILE");
  serve->add_option("--tls-key", inv.tls_key, "its private key (PEM)")->option_text("FILE");
  auto live_cap_text = std::make_shared<std::string>();
  auto* live_cap = serve->add_option("--live-cap", *live_cap_text,
                                     "live pages streamed to at once (default 16, at most 64); "
                                     "past it a page is refused with 503")
                     ->option_text("N");
  common_options(*serve, line, prints::no_rows);
  return finish_as(serve, command::serve, [live_cap, live_cap_text](invocation& inv) {
    if (inv.json || inv.csv)
      throw usage_error("`soma serve` answers JSON at /api/ (docs/web.md); " + script_flag(inv)
                        + " has nothing to print here");
    if (live_cap->count() > 0) {
      inv.live_cap = parse_count(*live_cap_text, "N of `soma serve --live-cap N`");
      if (inv.live_cap < 1 || inv.live_cap > 64)
        throw usage_error("--live-cap " + *live_cap_text + ": from 1 to 64 live pages (each holds a "
                          "thread of the server while it is open)");
    }
  });
}

void serve(const store& s, const invocation& inv, std::ostream& out, std::ostream& err) {
  web::http_options o;
  o.listen = inv.listen;
  o.tls_cert = inv.tls_cert;
  o.tls_key = inv.tls_key;
  o.live_cap = inv.live_cap;
  o.threads = inv.live_cap + 8;
  std::unique_ptr<web::http_server> server;
  try {
    server = std::make_unique<web::http_server>(o);
  } catch (const web::http_error& e) {
    throw usage_error(e.what());
  }
  web::site site{*server, s};
  stop_on_signals stops{*server};
  out << server->url() << std::endl;
  err << "soma serve: serving the store '" << s.path() << "' at " << server->url()
      << " (read-only; at most " << inv.live_cap << " live pages); Ctrl-C stops" << std::endl;
  if (!server->run())
    throw usage_error("cannot serve at " + server->url() + ": " + std::strerror(errno));
  site.stop();
  err << "soma serve: stopped" << (stop_signal() ? " (" + std::string{strsignal(stop_signal())} + ")" : "")
      << std::endl;
}

} // namespace soma::cli
