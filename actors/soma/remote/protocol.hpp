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
/// A served store's client, store protocol 2: readers ask questions that
/// are answered where the store is. Protocol 1 ("store") copied the store.
inline constexpr const char* store_mode = "store.2";

} // namespace soma::detail

namespace soma::detail {

/// To a served store's session: `(store_atom, op, payload)` answered with
/// the op's bytes (schema/soma/wire/, docs/formats.md): "records":
/// RecordWrite -> RecordNumbers; "reading": Reading -> nothing; "ask.*":
/// a reader's question, Ask -> its answer (soma/store/detail/asking.hpp,
/// each part bounded by soma/store/answers.hpp); "copy": SnapshotAsk ->
/// SnapshotPart (a part of at most 4 MiB of a compacted copy of the whole
/// store, for `soma copy` only); "cache_get": CacheAsk ->
/// CacheAnswer; "cache_put": CacheKeep -> CacheKept; "trials_add": TrialsAdd
/// -> TrialNumbers; "claim": ClaimAsk -> ClaimAnswer (held up to a second for
/// a trial to come); "trial_end": TrialEnd -> TrialEnded; "trial_end_claim":
/// TrialEnd -> TrialEndedClaimed (the end, then the next claim, in one write
/// transaction); "reclaim":
/// ReclaimAsk -> TrialNumbers.
using store_atom = caf::atom_constant<caf::atom("somastore")>;

} // namespace soma::detail
