#pragma once

/// @file
/// `soma serve` and `soma trace`: the store over HTTP (soma/web/), and a
/// run's forwards as a Chrome trace written to a file.

#include <iosfwd>

#include "invocation.hpp"
#include "soma/store/store.hpp"

namespace soma::cli {

/// Serves `s` as inv.listen asks until SIGINT, SIGTERM or SIGHUP: prints
/// the URL as stdout's first line, says what it serves on `err`, and stops
/// after the signal once its connections end: a live stream within 1 s, an
/// idle keep-alive connection within 2 s, a client that stopped reading at
/// its 5 s write timeout. Throws usage_error when it cannot listen.
void serve(const store& s, const invocation& inv, std::ostream& out, std::ostream& err);

/// Writes the trace inv asks for to inv.output and says what it wrote (and
/// on `err`, when the cap cut it, what was left out).
void trace(const store& s, const invocation& inv, std::ostream& out, std::ostream& err);

} // namespace soma::cli
