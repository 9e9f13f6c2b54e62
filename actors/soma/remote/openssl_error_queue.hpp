#pragma once

/// @file
/// CAF 0.17's TLS sessions and OpenSSL's error queue: why soma clears the
/// queue before CAF's SSL_read, SSL_write, SSL_connect and SSL_accept, and
/// on which threads (openssl_error_queue.cpp).

#include <caf/fwd.hpp>

#include "soma/export.hpp"

namespace soma::detail {

/// Makes every thread an actor system made from `cfg` starts (its
/// scheduler's, its middleman's, its detached actors') clear the thread's
/// OpenSSL error queue before each SSL_read, SSL_write, SSL_connect and
/// SSL_accept, as OpenSSL requires and CAF's TLS sessions omit. Threads of
/// other actor systems and the program's own threads call OpenSSL's
/// functions untouched. soma::system_config calls it; call it before the
/// actor system is made.
void clear_openssl_errors_on_threads(caf::actor_system_config& cfg);

/// Whether OpenSSL's four calls, CAF's included, reach soma's definitions in
/// this process. They do unless libssl comes before libsoma in the
/// program's load order (with CMake, a program that names OpenSSL::SSL
/// itself beside soma::soma): then CAF's TLS sessions go without the
/// cleared queue.
[[nodiscard]] SOMA_API_EXPORT bool openssl_calls_reach_soma();

} // namespace soma::detail
