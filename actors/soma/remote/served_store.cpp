// The client side of a served store (soma://host:port): a connection of its
// own, in an actor system of its own, since soma::store is made without one.
// Registered with the store layer when soma_actors is loaded.

#include <cstdlib>
#include <memory>
#include <string>

#include <caf/actor_system.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/scoped_actor.hpp>

#include "soma/remote/address.hpp"
#include "soma/atoms.hpp"
#include "soma/remote/protocol.hpp"
#include "soma/remote/worker_link.hpp"
#include "soma/store/remote.hpp"
#include "soma/system_config.hpp"

namespace soma::detail {

namespace {

// How long one call to a server that keeps answering heartbeats may take: a
// snapshot of a large store is the longest. A server that stops answering
// at all is noticed sooner, within the connection timeout
// (soma::detection_bound, 3.5 s by default).
constexpr auto call_within = std::chrono::seconds(60);

// How long a write (a batch, a reading) may wait for its answer: writing a
// batch takes milliseconds. Past it the session is dropped and the next call
// reconnects. CAF 0.17 can send an answer down a connection to the client
// that the server has not yet noticed is dead (a server stopped and resumed
// while the client reconnected), and the heartbeat on the new connection
// keeps it from timing out: the answer is simply lost. Batches are
// idempotent, so the one sent again is written once.
constexpr auto write_within = std::chrono::seconds(5);

// The text of what went wrong, as the server said it.
constexpr const char* lost_marker = "soma.store_link.lost";

// Asks `session` once for the caller: a request to a peer that is gone
// would otherwise wait out its whole timeout, since CAF answers no request
// already sent to a proxy that dies. Monitoring the session ends it at once.
caf::behavior asking(caf::event_based_actor* self, caf::actor session) {
  auto pending = std::make_shared<std::optional<caf::response_promise>>();
  self->monitor(session);
  self->set_down_handler([self, pending](caf::down_msg&) {
    if (*pending)
      (*pending)->deliver(caf::make_error(caf::sec::runtime_error, std::string{lost_marker}));
    self->quit();
  });
  return {
    [self, session, pending](store_atom, std::string& op, std::string& payload) {
      auto rp = self->make_response_promise();
      *pending = rp;
      self->request(session, caf::infinite, store_atom::value, std::move(op), std::move(payload))
        .then(
          [self, pending](std::string& x) {
            (*pending)->deliver(std::move(x));
            pending->reset();
            self->quit();
          },
          [self, pending](caf::error& e) {
            (*pending)->deliver(std::move(e));
            pending->reset();
            self->quit();
          });
      return rp;
    },
  };
}

std::string from_env(const char* name) {
  auto* v = std::getenv(name);
  return v ? v : "";
}

class store_link final : public remote_link {
public:
  store_link(std::string address, const store_options& options) : address_(std::move(address)) {
    soma::address where;
    try {
      where = parse_address(address_.substr(std::string_view{"soma://"}.size()), "a served store");
    } catch (const std::invalid_argument& e) {
      throw store_error(std::string{e.what()} + " (a served store is soma://HOST:PORT)");
    }
    std::optional<soma::tls> tls;
    soma::tls files{options.tls_cert, options.tls_key, options.tls_ca};
    if (files.cert.empty() && files.key.empty() && files.ca.empty())
      files = {from_env("SOMA_TLS_CERT"), from_env("SOMA_TLS_KEY"), from_env("SOMA_TLS_CA")};
    if (!files.cert.empty() || !files.key.empty() || !files.ca.empty()) {
      if (files.cert.empty() || files.key.empty() || files.ca.empty())
        throw store_error("cannot reach the served store " + address_
                          + " over TLS: it needs a certificate, its key and a CA (tls_cert, "
                            "tls_key, tls_ca, or $SOMA_TLS_CERT, $SOMA_TLS_KEY, $SOMA_TLS_CA)");
      tls = files;
      cfg_.use_tls(*tls);
    }
    sys_ = std::make_unique<caf::actor_system>(cfg_);
    link_ = std::make_shared<worker_link>(*sys_, where, soma::mode::project, tls,
                                          std::chrono::seconds(5), 0);
    link_->serve_store();
    try {
      link_->open();
    } catch (const std::exception& e) {
      throw store_error("cannot reach the served store " + address_ + ": " + e.what());
    }
  }

  ~store_link() override {
    link_.reset();
    sys_.reset();
  }

  std::string call(const std::string& op, std::string payload) override {
    std::string why;
    auto session = link_->session(why);
    if (!session) {
      link_->ensure(); // reconnect once, bounded
      session = link_->session(why);
      if (!session)
        throw store_error("the served store " + address_ + " cannot be reached: " + why);
    }
    caf::scoped_actor self{*sys_};
    std::string answer;
    std::optional<std::string> failure;
    bool timed_out = false;
    auto asker = sys_->spawn(asking, session);
    auto within = op == "snapshot" ? caf::duration{call_within} : caf::duration{write_within};
    self->request(asker, within, store_atom::value, op, std::move(payload))
      .receive([&](std::string& x) { answer = std::move(x); },
               [&](caf::error& e) {
                 timed_out = e == caf::sec::request_timeout;
                 auto& ctx = e.context();
                 failure = ctx.match_elements<std::string>() ? ctx.get_as<std::string>(0)
                                                             : sys_->render(e);
               });
    if (failure && *failure == lost_marker) {
      auto why = link_->loss();
      link_->lost(session.address(), why);
      throw store_error("the served store " + address_ + " did not " + op
                        + ": it was lost (" + why + "); the next call reconnects");
    }
    if (failure) {
      caf::anon_send_exit(asker, caf::exit_reason::user_shutdown);
      if (timed_out) {
        link_->lost(session.address(), "it did not answer within the call's bound");
        throw store_error("the served store " + address_ + " did not " + op + ": no answer within "
                          + std::to_string(std::chrono::duration_cast<std::chrono::seconds>(
                                             op == "snapshot" ? call_within : write_within)
                                             .count())
                          + " s; the next call reconnects");
      }
      throw store_error("the served store " + address_ + " did not " + op + ": " + *failure);
    }
    link_->heard();
    return answer;
  }

  const std::string& address() const noexcept override { return address_; }

private:
  std::string address_;
  soma::system_config cfg_;
  std::unique_ptr<caf::actor_system> sys_;
  std::shared_ptr<worker_link> link_;
};

const bool registered = [] {
  set_remote_opener([](const std::string& address, const store_options& options) {
    return std::make_shared<store_link>(address, options);
  });
  return true;
}();

} // namespace

} // namespace soma::detail
