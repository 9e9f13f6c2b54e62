// libbench_remote_nodes.so: what the benchmark's workers serve.
#include "soma/node_library.hpp"

#include "cheap_node.hpp"

SOMA_NODE_LIBRARY(Cheap, Slow, Echo, EchoNumbers)
