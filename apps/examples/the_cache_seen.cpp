// The cache, seen: a frozen, cached node keeps its output in a store; the
// next forward with the same input recalls it, and the node does not run.
// A hit and a miss are two different facts, and a hit says nothing about a
// node having run, because it did not.
//
//   the_cache_seen [STORE]     (default: a fresh directory under $TMPDIR, else /tmp)

#include <cstdio>
#include <cstdlib>
#include <string>

#include <caf/actor_system.hpp>

#include "seed_nodes.hpp"
#include "soma/soma.hpp"
#include "store_dir.hpp"

int main(int argc, char** argv) {
  soma::system_config cfg;
  caf::actor_system system{cfg};

  auto dir = store_dir(argc, argv, "kept");
  //! [cached]
  soma::store kept{dir};

  // .cached() needs .frozen(): what is kept has to be settled, or the key
  // would point at a value the code no longer produces.
  auto cached = soma::graph::somatize(
    system, Tokenize{}.named("tokenize").frozen().cached() >> Embed{}.named("embed")
              >> Score{}.named("score"));

  for (int i = 0; i < 2; ++i) {
    cached.forward("the quick brown fox",
                   {.watching = [](const soma::fact& f) {
                      std::printf("%s %s\n", f.name.c_str(), std::string{f["node"].text()}.c_str());
                    },
                    .store = kept});
    std::printf("--\n");
  }
  //! [cached]
}
