// libseed_nodes.so: the seeds' nodes, served to soma-node workers
// (docs/remote.md, docs/fleet.md).
#include "soma/node_library.hpp"

#include "fleet_nodes.hpp"
#include "seed_nodes.hpp"

SOMA_NODE_LIBRARY(Tokenize, Embed, Score, Cheap, Costly)
