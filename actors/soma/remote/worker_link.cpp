#include "soma/remote/worker_link.hpp"

#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/io/middleman.hpp>
#include <caf/openssl/manager.hpp>
#include <caf/scoped_actor.hpp>
#include <caf/send.hpp>
#include <caf/to_string.hpp>

#include "soma/error.hpp"
#include "soma/remote/caller_trips.hpp"
#include "soma/remote/child.hpp"
#include "soma/remote/protocol.hpp"
#include "soma/system_config.hpp"

namespace soma::detail {

namespace {

using namespace std::chrono;

// Checks that something accepts TCP connections at `where` within `within`:
// CAF's own connect blocks for as long as the kernel tries.
void reachable(const soma::address& where, milliseconds within) {
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  auto port = std::to_string(where.port);
  if (int rc = getaddrinfo(where.host.c_str(), port.c_str(), &hints, &found); rc != 0)
    throw worker_error("cannot reach a worker at " + where.str() + ": " + gai_strerror(rc));
  std::string why = "no address";
  bool ok = false, timed_out = false;
  for (auto* a = found; a && !ok; a = a->ai_next) {
    int fd = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0)
      continue;
    if (::connect(fd, a->ai_addr, a->ai_addrlen) == 0) {
      ok = true;
    } else if (errno == EINPROGRESS) {
      pollfd p{fd, POLLOUT, 0};
      int rc = poll(&p, 1, static_cast<int>(within.count()));
      int err = 0;
      socklen_t len = sizeof err;
      timed_out = rc == 0;
      if (timed_out)
        why = "no answer within " + std::to_string(within.count()) + " ms";
      else if (rc > 0 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) == 0 && err == 0)
        ok = true;
      else
        why = std::strerror(err ? err : errno);
    } else {
      why = std::strerror(errno);
    }
    close(fd);
  }
  freeaddrinfo(found);
  if (!ok)
    throw worker_error("cannot reach a worker at " + where.str() + ": " + why,
                       timed_out ? caf::sec::connection_timeout : caf::sec::cannot_connect_to_node);
}

// The actor a worker monitors for this client: it lives as long as the link
// and tells the link when its session goes.
caf::behavior guard(caf::event_based_actor* self, std::weak_ptr<worker_link> link,
                    caf::actor session) {
  self->monitor(session);
  self->set_down_handler([self, link](caf::down_msg& dm) {
    if (auto l = link.lock())
      l->lost(dm.source, "the connection to it was lost (" + caf::to_string(dm.reason) + ")");
    self->quit();
  });
  return {[](const std::string&) {}};
}

} // namespace

worker_link::worker_link(caf::actor_system& sys, soma::address where, soma::mode how,
                         std::optional<soma::tls> tls, milliseconds within, pid_t child,
                         int lifeline)
  : sys_(sys), where_(std::move(where)), how_(how), tls_(std::move(tls)), within_(within),
    child_(child), lifeline_(lifeline) {}

worker_link::~worker_link() {
  if (guard_)
    caf::anon_send_exit(guard_, caf::exit_reason::user_shutdown);
  if (child_ > 0 && !child_status_) {
    kill(child_, SIGTERM);
    int status = 0;
    bool exited = false;
    for (int i = 0; i < 200 && !exited; ++i) {
      exited = waitpid(child_, &status, WNOHANG) == child_;
      if (!exited)
        std::this_thread::sleep_for(10ms);
    }
    if (!exited) {
      kill(child_, SIGKILL);
      waitpid(child_, &status, 0);
    }
  }
  if (lifeline_ >= 0)
    close(lifeline_);
}

std::string worker_said(caf::actor_system& sys, const caf::error& e) {
  if (e.category() == soma::error_category)
    return soma::describe(e);
  auto& ctx = e.context();
  if (ctx.match_elements<std::string>())
    return ctx.get_as<std::string>(0);
  return sys.render(e);
}

void worker_link::open() {
  reachable(where_, within_);
  caf::io::middleman_actor mm;
  if (tls_) {
    auto& cfg = sys_.config();
    if (!sys_.has_openssl_manager())
      throw worker_error("cannot reach " + where_.str() + " over TLS: this actor system has no "
                         "TLS; make it from a soma::system_config given use_tls(...) with the "
                         "same files");
    if (cfg.openssl_certificate != tls_->cert || cfg.openssl_key != tls_->key
        || cfg.openssl_cafile != tls_->ca)
      throw worker_error("cannot reach " + where_.str() + " over TLS: this actor system was "
                         "configured with other TLS files than the ones given to connect()");
    mm = sys_.openssl_manager().actor_handle();
  } else {
    mm = sys_.middleman().actor_handle();
  }
  caf::scoped_actor self{sys_};
  caf::actor front;
  std::string failure;
  caf::error cause;
  auto answered = [&](caf::error& e) {
    failure = worker_said(sys_, e);
    cause = std::move(e);
  };
  auto asked = std::chrono::steady_clock::now();
  self->request(mm, within_, caf::connect_atom::value, where_.host, where_.port)
    .receive(
      [&](const caf::node_id&, caf::strong_actor_ptr& ptr, const std::set<std::string>&) {
        front = caf::actor_cast<caf::actor>(std::move(ptr));
      },
      answered);
  // Silence: no answer in time, or a handshake the connection's own timeout
  // cut short (a stopped server takes the connection and says nothing).
  bool silent = cause == caf::sec::connection_timeout || cause == caf::sec::request_timeout
                || (cause == caf::sec::disconnect_during_handshake
                    && std::chrono::steady_clock::now() - asked >= std::chrono::seconds(1));
  if (!front && silent)
    throw worker_error("cannot connect to the worker at " + where_.str()
                         + ": it took the connection but did not answer within its bound ("
                         + failure + "): is it stopped or overloaded?",
                       caf::make_error(caf::sec::connection_timeout)); // its kind: timed out
  if (!front)
    throw worker_error("cannot connect to the worker at " + where_.str() + ": "
                         + (failure.empty() ? "it published no actor" : failure)
                         + (tls_ ? " (with TLS: do both sides trust the same CA?)" : ""),
                       cause ? std::move(cause) : caf::make_error(caf::sec::cannot_connect_to_node));
  // The guard is told its session once there is one.
  auto me = weak_from_this();
  caf::actor session;
  auto g = sys_.spawn([me](caf::event_based_actor* s) -> caf::behavior {
    return {[s, me](caf::actor& session) {
      s->become(guard(s, me, std::move(session)));
    }};
  });
  auto mode = !wire_mode_.empty() ? wire_mode_
                                  : std::string{how_ == soma::mode::network ? network_mode : project_mode};
  self->request(front, within_, open_atom::value, g, mode)
    .receive([&](caf::actor& x) { session = std::move(x); }, answered);
  if (!session) {
    caf::anon_send_exit(g, caf::exit_reason::user_shutdown);
    if (cause == caf::sec::request_timeout)
      throw worker_error("the worker at " + where_.str() + " did not open a session within "
                           + std::to_string(within_.count()) + " ms: is it stopped or overloaded?",
                         std::move(cause));
    throw worker_error("the worker at " + where_.str() + " refused the session: "
                         + (failure.empty() ? "no answer" : failure),
                       std::move(cause));
  }
  caf::anon_send(g, session);
  std::lock_guard guard_lock{lock_};
  if (guard_)
    caf::anon_send_exit(guard_, caf::exit_reason::user_shutdown);
  guard_ = std::move(g);
  session_ = std::move(session);
  lost_why_.clear();
  heard();
}

caf::actor worker_link::session(std::string& why) {
  std::lock_guard guard_lock{lock_};
  if (!session_)
    why = lost_why_;
  return session_;
}

caller_trips& worker_link::callers() {
  std::lock_guard guard_lock{lock_};
  if (!callers_)
    callers_ = std::make_unique<caller_trips>(sys_);
  return *callers_;
}

bool worker_link::connected() {
  std::lock_guard guard_lock{lock_};
  return static_cast<bool>(session_);
}

void worker_link::lost(const caf::actor_addr& session, std::string why) {
  std::lock_guard guard_lock{lock_};
  if (!session_ || session_.address() != session)
    return; // an older session: the current one is fine
  session_ = nullptr;
  lost_why_ = std::move(why);
}

namespace {

// Seconds with one decimal, as a person reads them.
std::string seconds(std::chrono::steady_clock::duration d) {
  auto tenths = duration_cast<milliseconds>(d).count() / 100;
  return std::to_string(tenths / 10) + "." + std::to_string(tenths % 10) + " s";
}

} // namespace

std::string worker_link::loss() {
  auto silent = steady_clock::now()
                - steady_clock::time_point{steady_clock::duration{heard_.load(std::memory_order_relaxed)}};
  std::string why;
  {
    std::lock_guard guard_lock{lock_};
    if (child_exited(why))
      return why;
  }
  auto allowed = silence_allowed(sys_.config());
  bool timed_out = allowed.count() > 0 && silent >= allowed;
  if (child_ > 0 && stopped(child_))
    return "its process " + std::to_string(child_) + " is stopped and sent nothing for "
           + seconds(silent);
  if (timed_out)
    return "no answer came for " + seconds(silent)
           + " and the connection was closed: the worker is stopped, unreachable or gone (a "
             "connection that sends nothing for "
           + seconds(allowed) + " is closed; middleman.connection-timeout)";
  return "the connection closed after " + seconds(silent);
}

bool worker_link::child_exited(std::string& why) {
  if (child_ <= 0)
    return false;
  if (!child_status_) {
    int status = 0;
    if (waitpid(child_, &status, WNOHANG) == child_)
      child_status_ = status;
  }
  if (child_status_)
    why = "its process " + std::to_string(child_) + " " + exit_text(*child_status_)
          + "; give the broker another with broker::put";
  return child_status_.has_value();
}

void worker_link::ensure() {
  // One reconnect at a time: a second caller waits and then finds it done.
  std::lock_guard one_at_a_time{connecting_};
  {
    std::lock_guard guard_lock{lock_};
    if (session_)
      return;
    std::string why;
    if (child_exited(why)) {
      lost_why_ = why;
      return;
    }
  }
  try {
    open();
  } catch (const worker_error& e) {
    // A child killed a moment ago may still be dying (its sockets close
    // before it can be reaped): how it ended says more than the failed
    // connection, so give it a moment to finish. The lock is taken per look,
    // never across a sleep: loss() takes it from a scheduler thread.
    std::string why;
    bool exited = false;
    for (int i = 0; i <= 100; ++i) {
      {
        std::lock_guard guard_lock{lock_};
        exited = child_exited(why);
        if (exited || child_ <= 0 || i == 100) {
          lost_why_ = exited ? why : e.what();
          break;
        }
      }
      std::this_thread::sleep_for(10ms);
    }
  }
}

} // namespace soma::detail
