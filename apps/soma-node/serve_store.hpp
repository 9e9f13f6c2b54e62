#pragma once

/// @file
/// `soma-node --serve-store DIR`: the store this worker serves to writers
/// and readers elsewhere (soma://HOST:PORT), opened before it listens. Its
/// sessions are the front's (soma/worker/server.hpp, soma/served/session.hpp),
/// over worker_state's served_store.

#include <optional>

#include "options.hpp"
#include "soma/store/store.hpp"

namespace soma::node_cli {

/// Opens the store --serve-store names into `served` (left empty when the
/// option is not given), making a new one where there is none and saying so
/// in the log: a typo must not pass for the store an operator meant.
/// Readings are written with one sync (store_options::expendable_readings),
/// everything else durably. Raises the open-files limit for
/// --store-sessions sockets. Returns false once stderr said why it cannot
/// be opened (exit_usage).
[[nodiscard]] bool open_served_store(const options& opt, std::optional<soma::store>& served);

} // namespace soma::node_cli
