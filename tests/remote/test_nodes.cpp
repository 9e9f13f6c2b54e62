// The node library the remote tests give to soma-node workers.
#include "soma/node_library.hpp"

#include "seed_nodes.hpp"
#include "test_nodes.hpp"

SOMA_NODE_LIBRARY(Tokenize, Embed, Score, Inc, Twice, Picky, Sleepy, Says, Scale, Offset, Nap, Held)
