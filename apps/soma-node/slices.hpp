#pragma once

/// @file
/// Serving slices, what every soma-node does: the node libraries it serves
/// by name (--nodes), and the front that takes clients' sessions, published
/// on --listen (soma/worker/server.hpp runs them; docs/remote.md).

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <caf/fwd.hpp>

#include "options.hpp"
#include "soma/detail/libraries.hpp"
#include "soma/worker/worker_state.hpp"

namespace soma::node_cli {

/// The node libraries of --nodes, loaded, each once however often (or by
/// however many paths) it is given. Returns nullopt once stderr said which
/// cannot be loaded and why (exit_usage).
[[nodiscard]] std::optional<std::vector<std::shared_ptr<const detail::node_library>>>
load_libraries(const options& opt);

/// Publishes `front` where `at` says, with mutual TLS when it says so, and
/// prints the port as the first line of stdout. Returns the port, or
/// nullopt once stderr said why it cannot listen and `front` was told to
/// exit (exit_cannot).
[[nodiscard]] std::optional<std::uint16_t> publish_front(caf::actor_system& sys, const caf::actor& front,
                                                         const options& opt, const listening& at);

/// The node types the worker serves by name, library by library.
[[nodiscard]] std::vector<std::string> served_types(const serve::worker_state& worker);

} // namespace soma::node_cli
