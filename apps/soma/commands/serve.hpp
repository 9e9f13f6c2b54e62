#pragma once

/// @file
/// `soma serve`: the store over HTTP (soma/web/): a web page of its runs,
/// the fleet, trials and opinions, live; its JSON API, traces and
/// Prometheus metrics (docs/web.md).

#include <iosfwd>

#include "soma/store/store.hpp"
#include "subcommand.hpp"

namespace soma::cli {

/// Adds `soma serve` to the command line.
[[nodiscard]] finish add_serve(command_line& line);

/// Serves `s` as inv.listen asks until SIGINT, SIGTERM or SIGHUP: prints
/// the URL as stdout's first line, says what it serves on `err`, and stops
/// after the signal once its connections end: a live stream within 1 s, an
/// idle keep-alive connection within 2 s, a client that stopped reading at
/// its 5 s write timeout. Throws usage_error when it cannot listen.
void serve(const store& s, const invocation& inv, std::ostream& out, std::ostream& err);

} // namespace soma::cli
