#pragma once

/// @file
/// `soma-node --store WHERE [--reporting S]`: the store the worker writes
/// its readings of itself into (and, with --claim, its claims and results):
/// a directory, or a store another soma-node serves (soma://HOST:PORT),
/// reached through the worker's own actor system and TLS files, and tried
/// again while it cannot be (docs/fleet.md).

#include <functional>
#include <optional>
#include <string>

#include <caf/fwd.hpp>

#include "options.hpp"
#include "soma/store/store.hpp"
#include "soma/worker/worker_state.hpp"

namespace soma::node_cli {

/// Makes --store reachable through `sys`: a directory is opened into
/// `opened` now; a served store is reached by `reach`, which whoever writes
/// to it (the reporter, the claims) calls until it is there, and which
/// throws store_error (store_trouble::unreachable) meanwhile. Neither
/// without --store. Returns false once stderr said why the directory cannot
/// be opened (exit_usage). `reach` uses `sys`: it must not outlive it.
[[nodiscard]] bool reach_readings_store(caf::actor_system& sys, const options& opt,
                                        std::optional<store>& opened,
                                        std::function<store()>& reach);

/// Starts the reporter: a reading of the worker into --store now and every
/// --reporting seconds, saying it listens at `listens` (host:port) and what
/// it serves. Returns it, or an invalid handle when the worker does not
/// report itself: without --store, and with --claim, whose claimant reports
/// for it (claims.hpp).
[[nodiscard]] caf::actor start_reporting(caf::actor_system& sys, serve::worker_state& worker,
                                         const options& opt, const std::optional<store>& opened,
                                         const std::function<store()>& reach,
                                         const std::string& listens);

} // namespace soma::node_cli
