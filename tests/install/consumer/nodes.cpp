#include <soma/node_library.hpp>

#include "nodes.hpp"

SOMA_NODE_LIBRARY(Shout)
