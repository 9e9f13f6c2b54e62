// soma-node: the worker process a user launches on a cluster host. It
// publishes one actor over CAF's middleman and runs the slices of graphs that
// clients send it (docs/remote.md). This file only wires the parts together:
// options.cpp reads and checks the command line; run.cpp starts the modes it
// asks for, one file each (slices, serve_store, reporting, claims, metrics),
// and stops them on a signal (signals.cpp); log.cpp says what it did;
// memory.cpp keeps large buffers for reuse.

#include "memory.hpp"
#include "options.hpp"
#include "run.hpp"

int main(int argc, char** argv) {
  soma::node_cli::keep_large_buffers();
  soma::node_cli::options opt;
  if (auto done = soma::node_cli::parse_options(argc, argv, opt))
    return *done;
  return soma::node_cli::run(opt);
}
