// CAF 0.17's TLS sessions (caf::openssl::session) call SSL_read, SSL_write,
// SSL_connect and SSL_accept without clearing the thread's OpenSSL error
// queue first, then ask SSL_get_error what happened. All sessions of an
// actor system share one multiplexer thread, so an error left in its queue
// by one session's handshake makes the next session's harmless "want read"
// look like a failure, and CAF closes that connection too. A worker's open
// TLS connections then dropped whenever another client connected, even a
// client that was then refused (tests/remote/tls_test.cpp).
//
// OpenSSL's rule is that the queue must be empty before such a call
// (SSL_get_error(3)). These definitions, exported by libsoma, are found
// before libssl's by every caller in the process (symbol interposition is
// decided when the process links, not per caller). So each one clears the
// queue only on a thread of an actor system soma configured (marked by the
// thread hook below), and otherwise calls libssl's own function straight
// away: the program's own threads, and other actor systems, keep OpenSSL's
// behaviour, entries in their queue included (tests/coexist/openssl_test.cpp).

#include "soma/remote/openssl_error_queue.hpp"

#include <dlfcn.h>

#include <caf/actor_system_config.hpp>
#include <caf/thread_hook.hpp>

#include <openssl/err.h>
#include <openssl/ssl.h>

namespace {

// Whether this thread was started by an actor system soma configured.
thread_local bool clears = false;

class mark_threads final : public caf::thread_hook {
public:
  void init(caf::actor_system&) override {}
  void thread_started() override { clears = true; }
  void thread_terminates() override { clears = false; }
};

template <class F>
F next(const char* name) {
  return reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
}

} // namespace

namespace soma::detail {

void clear_openssl_errors_on_threads(caf::actor_system_config& cfg) {
  cfg.add_thread_hook<mark_threads>();
}

bool openssl_calls_reach_soma() {
  // The library the process's SSL_read is in, against this one (found by a
  // function no one can interpose).
  Dl_info bound{}, here{};
  auto* found = dlsym(RTLD_DEFAULT, "SSL_read");
  return found && dladdr(found, &bound) != 0
         && dladdr(reinterpret_cast<void*>(&next<int (*)(SSL*)>), &here) != 0
         && bound.dli_fbase == here.dli_fbase;
}

} // namespace soma::detail

extern "C" {

__attribute__((visibility("default"))) int SSL_read(SSL* ssl, void* buf, int num) {
  static auto real = next<int (*)(SSL*, void*, int)>("SSL_read");
  if (clears)
    ERR_clear_error();
  return real(ssl, buf, num);
}

__attribute__((visibility("default"))) int SSL_write(SSL* ssl, const void* buf, int num) {
  static auto real = next<int (*)(SSL*, const void*, int)>("SSL_write");
  if (clears)
    ERR_clear_error();
  return real(ssl, buf, num);
}

__attribute__((visibility("default"))) int SSL_connect(SSL* ssl) {
  static auto real = next<int (*)(SSL*)>("SSL_connect");
  if (clears)
    ERR_clear_error();
  return real(ssl);
}

__attribute__((visibility("default"))) int SSL_accept(SSL* ssl) {
  static auto real = next<int (*)(SSL*)>("SSL_accept");
  if (clears)
    ERR_clear_error();
  return real(ssl);
}

} // extern "C"
