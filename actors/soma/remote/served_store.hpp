#pragma once

/// @file
/// soma::open_store: a store in a directory, or one that a soma-node on
/// another host serves (`soma-node --serve-store DIR`, `soma://host:port`),
/// reached through the caller's actor system (docs/fleet.md).
///
/// LMDB must not sit on a network file system, so a served store's bytes
/// stay on its server's disk. What travels: a recorder's batches, machine
/// readings and cached outputs, each written there as if local; and for
/// readers, their questions and the answers, which the server reads there
/// and sends in bounded parts (a part of runs, forwards or a curve at a
/// time: soma/served/protocol.hpp lists each operation). Only `soma copy`
/// moves the whole store, in parts.

#include <string>

#include <caf/expected.hpp>
#include <caf/fwd.hpp>

#include "soma/export.hpp"
#include "soma/store/store.hpp"

SOMA_API_BEGIN

namespace soma {

/// Opens the store at `where`: a directory (as soma::store does), or
/// `soma://host:port`, reached through `sys`. `sys` must outlive the store
/// and every copy of it; with TLS (store_options' tls files, or
/// $SOMA_TLS_CERT, $SOMA_TLS_KEY and $SOMA_TLS_CA) it must have been made
/// from a soma::system_config given the same files with use_tls. The error
/// is a soma::error_code::store_failed caf::error naming the address and
/// saying what to do.
[[nodiscard]] caf::expected<store> open_store(caf::actor_system& sys, const std::string& where,
                                              store_options options = {});

} // namespace soma

SOMA_API_END
