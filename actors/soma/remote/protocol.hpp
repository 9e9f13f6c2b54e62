#pragma once

/// @file
/// What a client and a soma-node worker send each other over CAF's
/// middleman. Payloads are bytes in std::string: Cap'n Proto headers
/// (schema/remote.capnp, encoded in schema/soma/wire/) and values as the
/// codec wrote them. CAF knows std::string in every process, so nothing
/// needs announcing and a message from another build never arrives empty.
///
/// | message                                      | to       | answer                          |
/// | -------------------------------------------- | -------- | ------------------------------- |
/// | (open_atom, actor client, string mode)       | worker   | actor session, or error         |
/// | (slice_atom, string Slice, string input)     | session  | (string SliceResult, string output) |
/// | (ship_atom, string hash, string library)     | session  | shipped_atom, or error          |
///
/// The value of a trip travels as its own string beside its header: the
/// codec's bytes are the payload, with no wrapper around them to copy into.
///
/// A served store's sessions open here too, in their own modes, and speak
/// its protocol (soma/served/protocol.hpp).
///
/// The worker monitors `client`: when it goes (the client's handle was
/// destroyed, its process died, the connection dropped) the session closes.

#include <caf/atom.hpp>

namespace soma::detail {

using open_atom = caf::atom_constant<caf::atom("somaopen")>;
using slice_atom = caf::atom_constant<caf::atom("somaslice")>;
using ship_atom = caf::atom_constant<caf::atom("somaship")>;
using shipped_atom = caf::atom_constant<caf::atom("somashiped")>;

/// The modes a session is opened in, as said on the wire.
inline constexpr const char* project_mode = "project";
inline constexpr const char* network_mode = "network";

} // namespace soma::detail
