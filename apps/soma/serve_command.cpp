#include "serve_command.hpp"

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <fstream>
#include <ostream>
#include <thread>

#include <poll.h>
#include <unistd.h>

#include "soma/draw/trace.hpp"
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

void trace(const store& s, const invocation& inv, std::ostream& out, std::ostream& err) {
  draw::trace_options o;
  if (inv.forward_given)
    o.forward = inv.forward;
  o.last = inv.last;
  if (inv.max_bytes)
    o.max_bytes = static_cast<std::size_t>(*inv.max_bytes);
  auto t = draw::trace_of(s, inv.run, o);
  std::ofstream file{inv.output, std::ios::binary | std::ios::trunc};
  if (!file || !file.write(t.json.data(), static_cast<std::streamsize>(t.json.size())) || !file.flush())
    throw usage_error("cannot write '" + inv.output + "': " + std::strerror(errno));
  out << "wrote " << t.forwards << (t.forwards == 1 ? " forward" : " forwards") << " of run '"
      << inv.run << "' (" << t.events << " events, " << t.json.size() << " bytes) to " << inv.output
      << "; open it in https://ui.perfetto.dev or chrome://tracing\n";
  if (t.cut)
    err << "soma: " << t.note << '\n';
}

} // namespace soma::cli
