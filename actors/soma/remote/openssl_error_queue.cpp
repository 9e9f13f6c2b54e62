// CAF 0.17's TLS sessions (caf::openssl::session) call SSL_read, SSL_write,
// SSL_connect and SSL_accept without clearing the thread's OpenSSL error
// queue first, then ask SSL_get_error what happened. All sessions of a
// process share one multiplexer thread, so an error left in its queue by one
// session's handshake makes the next session's harmless "want read" look
// like a failure, and CAF closes that connection too. A worker's open TLS
// connections then dropped whenever another client connected, even a client
// that was then refused (tests/remote/tls_test.cpp).
//
// OpenSSL's rule is that the queue must be empty before such a call
// (SSL_get_error(3)). These definitions, exported by soma_actors, are found
// before libssl's when CAF calls them: each clears the queue and calls
// libssl's own. For any other caller in the process this is the documented
// correct use, so it changes nothing else.

#include <dlfcn.h>

#include <openssl/err.h>
#include <openssl/ssl.h>

namespace {

template <class F>
F next(const char* name) {
  return reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
}

} // namespace

extern "C" {

__attribute__((visibility("default"))) int SSL_read(SSL* ssl, void* buf, int num) {
  static auto real = next<int (*)(SSL*, void*, int)>("SSL_read");
  ERR_clear_error();
  return real(ssl, buf, num);
}

__attribute__((visibility("default"))) int SSL_write(SSL* ssl, const void* buf, int num) {
  static auto real = next<int (*)(SSL*, const void*, int)>("SSL_write");
  ERR_clear_error();
  return real(ssl, buf, num);
}

__attribute__((visibility("default"))) int SSL_connect(SSL* ssl) {
  static auto real = next<int (*)(SSL*)>("SSL_connect");
  ERR_clear_error();
  return real(ssl);
}

__attribute__((visibility("default"))) int SSL_accept(SSL* ssl) {
  static auto real = next<int (*)(SSL*)>("SSL_accept");
  ERR_clear_error();
  return real(ssl);
}

} // extern "C"
