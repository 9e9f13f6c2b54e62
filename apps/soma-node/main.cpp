// soma-node: the worker process a user launches on a cluster host. For now it
// answers --version and --help; serving slices arrives with remote nodes.

#include <cstdio>
#include <cstring>

#include "soma/version.hpp"

namespace {

constexpr const char* usage = "usage: soma-node [--version] [--help]\n"
                              "\n"
                              "The soma worker. This build knows only --version and --help;\n"
                              "serving nodes to a graph (--listen, --nodes, --accept-code)\n"
                              "is not built yet.\n";

} // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--version") == 0) {
      std::printf("soma-node %s\n", soma::version);
      return 0;
    }
    if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
      std::fputs(usage, stdout);
      return 0;
    }
    std::fprintf(stderr, "soma-node: unknown option '%s'\n\n%s", argv[i], usage);
    return 2;
  }
  std::fputs(usage, stderr);
  return 2;
}
