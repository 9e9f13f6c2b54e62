#pragma once

/// @file
/// The cache writer: a detached actor that keeps a cached node's outputs
/// (and looks them up in a served store),
/// so that no pooled actor (and no CAF worker thread) waits on LMDB's write
/// lock or a disk sync. A node actor spawns one, linked to it, at its first
/// miss; the node waits for its answer (the forward's order of facts stays
/// `ran`, `kept`, then what follows) without holding a worker thread.
///
/// Part of what the templates of soma/graph.hpp compile in your program, so
/// it is installed; it is not an API: its names are in soma::detail and
/// may change with any release.

#include <chrono>
#include <string>

#include <caf/actor.hpp>
#include <caf/allowed_unsafe_message_type.hpp>
#include <caf/atom.hpp>
#include <caf/fwd.hpp>

#include "soma/export.hpp"
#include "soma/store/store.hpp"

SOMA_API_BEGIN

namespace soma::detail {

/// One output to keep.
struct cache_write {
  store where;
  std::string key;
  std::string type, node, version;
  std::string bytes;
};

using keep_atom = caf::atom_constant<caf::atom("keep")>;
using recall_atom = caf::atom_constant<caf::atom("recall")>;

/// How long a node waits for its output to be kept before it goes on
/// without (the output is then not `kept`; the write may still land).
inline constexpr std::chrono::seconds keep_within{5};

/// Spawns a cache writer linked to `parent`: it answers `(keep_atom,
/// cache_write)` with whether the output was kept (false when the cache's
/// limit refuses it or the write failed), and `(recall_atom, cache_write)`
/// (no bytes) with (found, the kept output): the lookup of a store whose
/// calls wait on another host (soma://), which must never hold a pooled
/// actor's thread.
[[nodiscard]] caf::actor spawn_cache_writer(caf::local_actor* parent);

} // namespace soma::detail

namespace caf {

// In-process only: a node actor and its writer are one process.
template <>
struct allowed_unsafe_message_type<soma::detail::cache_write> : std::true_type {};

} // namespace caf

SOMA_API_END
