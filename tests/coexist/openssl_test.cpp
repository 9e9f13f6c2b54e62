// A program's own TLS beside soma, in one process: a client and a server
// made with OpenSSL's API over loopback, on the program's own threads,
// while soma runs a graph and records it. soma clears the OpenSSL error
// queue before SSL_read, SSL_write, SSL_connect and SSL_accept only on the
// threads of its own actor systems, where CAF's TLS sessions need it
// (actors/soma/remote/openssl_error_queue.cpp); here the queue holds what
// OpenSSL and the program put there.

#include <boost/test/unit_test.hpp>

#include <cstring>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/blocking_actor.hpp>

#include "soma/remote/openssl_error_queue.hpp"
#include "soma_at_work.hpp"

using namespace soma_test;

namespace {

using key_ptr = std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)>;
using cert_ptr = std::unique_ptr<X509, decltype(&X509_free)>;
using ctx_ptr = std::unique_ptr<SSL_CTX, decltype(&SSL_CTX_free)>;
using ssl_ptr = std::unique_ptr<SSL, decltype(&SSL_free)>;

// A key and a certificate for "localhost" that signs itself, made here.
struct self_signed {
  key_ptr key{EVP_EC_gen("P-256"), &EVP_PKEY_free};
  cert_ptr cert{X509_new(), &X509_free};

  self_signed() {
    auto* c = cert.get();
    X509_set_version(c, 2);
    ASN1_INTEGER_set(X509_get_serialNumber(c), 1);
    X509_gmtime_adj(X509_getm_notBefore(c), 0);
    X509_gmtime_adj(X509_getm_notAfter(c), 3600);
    X509_set_pubkey(c, key.get());
    auto* name = X509_get_subject_name(c);
    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                               reinterpret_cast<const unsigned char*>("localhost"), -1, -1, 0);
    X509_set_issuer_name(c, name);
    X509_sign(c, key.get(), EVP_sha256());
  }
};

ctx_ptr server_context(const self_signed& id) {
  ctx_ptr ctx{SSL_CTX_new(TLS_server_method()), &SSL_CTX_free};
  SSL_CTX_use_certificate(ctx.get(), id.cert.get());
  SSL_CTX_use_PrivateKey(ctx.get(), id.key.get());
  // No TLS 1.3 session tickets: a client's read that takes one runs
  // OpenSSL's handshake code, which empties the queue itself.
  SSL_CTX_set_num_tickets(ctx.get(), 0);
  return ctx;
}

// A client that checks the server's certificate against no CA at all
// (`verify`), or one that takes any certificate.
ctx_ptr client_context(bool verify) {
  ctx_ptr ctx{SSL_CTX_new(TLS_client_method()), &SSL_CTX_free};
  SSL_CTX_set_verify(ctx.get(), verify ? SSL_VERIFY_PEER : SSL_VERIFY_NONE, nullptr);
  return ctx;
}

// Both ends of a TCP connection over loopback. Every read and write on
// them gives up after the deadline, so no blocking TLS call below waits
// longer.
struct loopback {
  int client = -1, server = -1;

  loopback() {
    int listener = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in at{};
    at.sin_family = AF_INET;
    at.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof at;
    bool listening = ::bind(listener, reinterpret_cast<sockaddr*>(&at), sizeof at) == 0
                     && ::listen(listener, 1) == 0
                     && ::getsockname(listener, reinterpret_cast<sockaddr*>(&at), &len) == 0;
    client = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    // On loopback the connection completes in the listener's backlog.
    if (listening && ::connect(client, reinterpret_cast<sockaddr*>(&at), sizeof at) == 0) {
      pollfd p{listener, POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(std::chrono::milliseconds{deadline}.count())) == 1)
        server = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
    }
    ::close(listener);
    timeval t{static_cast<time_t>(std::chrono::seconds{deadline}.count()), 0};
    for (int fd : {client, server}) {
      ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &t, sizeof t);
      ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &t, sizeof t);
    }
  }

  ~loopback() {
    for (int fd : {client, server})
      if (fd >= 0)
        ::close(fd);
  }

  loopback(const loopback&) = delete;
  loopback& operator=(const loopback&) = delete;

  [[nodiscard]] bool connected() const { return client >= 0 && server >= 0; }
};

ssl_ptr over(SSL_CTX* ctx, int fd) {
  ssl_ptr ssl{SSL_new(ctx), &SSL_free};
  SSL_set_fd(ssl.get(), fd);
  return ssl;
}

// An entry a program left in its thread's queue before a TLS call. OpenSSL
// asks for an empty queue there; a program that keeps an entry it has not
// looked at yet expects to find it afterwards.
unsigned long leave_an_entry() {
  ERR_raise(ERR_LIB_USER, 7);
  return ERR_peek_last_error();
}

// Runs `f` on a thread that `sys` started (a blocking actor's) and gives
// what it returned, or nothing by twice the deadline (its socket calls give
// up after one).
std::optional<bool> on_a_thread_of(caf::actor_system& sys, std::function<bool()> f) {
  auto done = std::make_shared<std::promise<bool>>();
  auto result = done->get_future();
  sys.spawn([done, f = std::move(f)](caf::blocking_actor*) { done->set_value(f()); });
  if (result.wait_for(2 * deadline) != std::future_status::ready)
    return std::nullopt;
  return result.get();
}

} // namespace

BOOST_AUTO_TEST_SUITE(coexist_openssl)

BOOST_AUTO_TEST_CASE(ssls_calls_reach_somas_definitions_in_this_program) {
  // Else the cases below would pass whatever soma's definitions did: this
  // program links soma::actors before OpenSSL::SSL (CMakeLists.txt).
  BOOST_TEST(soma::detail::openssl_calls_reach_soma());
}

BOOST_AUTO_TEST_CASE(a_plain_tls_pair_beside_soma_keeps_what_its_error_queue_holds) {
  soma_at_work soma;

  self_signed id;
  auto server_ctx = server_context(id);
  auto client_ctx = client_context(false);
  loopback net;
  BOOST_REQUIRE(net.connected());

  int accepted = 0;
  std::string heard;
  std::thread server{[&] {
    auto s = over(server_ctx.get(), net.server);
    accepted = SSL_accept(s.get());
    char buf[4];
    if (SSL_read(s.get(), buf, sizeof buf) == 4)
      heard.assign(buf, 4);
    SSL_write(s.get(), "pong", 4);
    // Gone without TLS's close_notify: the client's next read is an
    // unexpected end of file.
    ::shutdown(net.server, SHUT_WR);
  }};

  ERR_clear_error();
  auto c = over(client_ctx.get(), net.client);
  BOOST_TEST(SSL_connect(c.get()) == 1);
  auto mine = leave_an_entry();
  BOOST_TEST(SSL_write(c.get(), "ping", 4) == 4);
  BOOST_TEST(ERR_peek_error() == mine); // soma's old wrapper emptied the queue here
  char buf[4];
  BOOST_TEST(SSL_read(c.get(), buf, sizeof buf) == 4);
  BOOST_TEST(std::string(buf, 4) == "pong");
  BOOST_TEST(ERR_peek_error() == mine);
  server.join();
  BOOST_TEST(accepted == 1);
  BOOST_TEST(heard == "ping");

  // The read that fails puts OpenSSL's reason behind the program's entry,
  // and SSL_get_error reports it as OpenSSL documents: with the queue not
  // empty, an SSL error.
  int r = SSL_read(c.get(), buf, sizeof buf);
  BOOST_TEST(r <= 0);
  BOOST_TEST(SSL_get_error(c.get(), r) == SSL_ERROR_SSL);
  BOOST_TEST(ERR_peek_error() == mine);
  BOOST_TEST(ERR_GET_LIB(ERR_peek_last_error()) == ERR_LIB_SSL);
  BOOST_TEST(ERR_GET_REASON(ERR_peek_last_error()) == SSL_R_UNEXPECTED_EOF_WHILE_READING);
  ERR_clear_error();

  BOOST_TEST(soma.goes_on());
}

BOOST_AUTO_TEST_CASE(a_refused_handshake_beside_soma_says_why_on_both_sides) {
  soma_at_work soma;

  self_signed id;
  auto server_ctx = server_context(id);
  auto client_ctx = client_context(true); // trusts no CA: the certificate is refused
  loopback net;
  BOOST_REQUIRE(net.connected());

  int accepted = 0;
  unsigned long server_reason = 0;
  std::thread server{[&] {
    auto s = over(server_ctx.get(), net.server);
    ERR_clear_error();
    accepted = SSL_accept(s.get());
    server_reason = ERR_peek_last_error();
    ERR_clear_error();
  }};
  ERR_clear_error();
  auto c = over(client_ctx.get(), net.client);
  int connected = SSL_connect(c.get());
  BOOST_TEST(connected != 1);
  BOOST_TEST(SSL_get_error(c.get(), connected) == SSL_ERROR_SSL);
  BOOST_TEST(ERR_GET_REASON(ERR_peek_last_error()) == SSL_R_CERTIFICATE_VERIFY_FAILED);
  BOOST_TEST(SSL_get_verify_result(c.get()) == X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT);
  ERR_clear_error();
  server.join();
  BOOST_TEST(accepted != 1);
  BOOST_TEST(ERR_GET_REASON(server_reason) == SSL_R_TLSV1_ALERT_UNKNOWN_CA);

  BOOST_TEST(soma.goes_on());
}

BOOST_AUTO_TEST_CASE(the_queue_is_cleared_before_tls_calls_on_soma_systems_threads_only) {
  // Where soma does clear the queue: on a thread of an actor system made
  // from soma::system_config (where CAF's TLS sessions run). A thread of a
  // plain CAF system, or of the program, keeps its entries.
  soma_at_work soma;
  caf::actor_system_config plain_cfg;
  caf::actor_system plain{plain_cfg};
  self_signed id;
  auto server_ctx = server_context(id);
  auto client_ctx = client_context(false);

  // A TLS client that writes once on the thread it is called on, after
  // leaving an entry in that thread's queue; true when the entry is still
  // there afterwards.
  auto keeps_its_entry_on = [&](auto run_on) -> std::optional<bool> {
    auto net = std::make_shared<loopback>();
    if (!net->connected())
      return std::nullopt;
    std::thread server{[&, net] {
      auto s = over(server_ctx.get(), net->server);
      char buf[4];
      if (SSL_accept(s.get()) == 1)
        (void) SSL_read(s.get(), buf, sizeof buf);
      ERR_clear_error();
    }};
    auto ctx = client_ctx.get();
    auto kept = run_on([net, ctx] {
      ERR_clear_error();
      auto c = over(ctx, net->client);
      if (SSL_connect(c.get()) != 1)
        return false;
      auto mine = leave_an_entry();
      SSL_write(c.get(), "ping", 4);
      bool still = ERR_peek_error() == mine;
      ERR_clear_error();
      return still;
    });
    server.join();
    return kept;
  };

  auto on_soma = keeps_its_entry_on([&](std::function<bool()> f) { return on_a_thread_of(soma.sys(), f); });
  BOOST_REQUIRE(on_soma);
  BOOST_TEST(!*on_soma, "on a thread of soma's actor system the queue was not cleared");
  auto on_plain = keeps_its_entry_on([&](std::function<bool()> f) { return on_a_thread_of(plain, f); });
  BOOST_REQUIRE(on_plain);
  BOOST_TEST(*on_plain, "on a thread of a plain CAF system the program's entry was lost");
  auto here = keeps_its_entry_on([](std::function<bool()> f) { return std::optional<bool>{f()}; });
  BOOST_REQUIRE(here);
  BOOST_TEST(*here, "on the program's own thread its entry was lost");
}

BOOST_AUTO_TEST_SUITE_END()
