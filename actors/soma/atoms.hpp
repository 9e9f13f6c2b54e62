#pragma once

/// @file
/// The atoms soma's actors speak.

#include <caf/atom.hpp>

#include "soma/export.hpp"

SOMA_API_BEGIN

namespace soma {

/// Asks a graph actor for a forward: `(forward_atom, In)` or
/// `(forward_atom, In, soma::watching)`, answered with `Out`.
using forward_atom = caf::atom_constant<caf::atom("forward")>;

} // namespace soma

SOMA_API_END
