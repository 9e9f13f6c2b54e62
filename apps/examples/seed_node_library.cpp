// libseed_nodes.so: the seed's three nodes, served to soma-node workers
// (docs/remote.md).
#include "soma/node_library.hpp"

#include "seed_nodes.hpp"

SOMA_NODE_LIBRARY(Tokenize, Embed, Score)
