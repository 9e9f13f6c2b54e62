// A watcher of your own: a CAF actor that handles soma::fact.
//
// This one keeps, per node, how often it ran and for how long, and answers a
// `tally_atom` request with a table. Subscribe it to a forward with
// `{.watching = tally}`; it receives every fact of that forward, in order, and
// has all of them in its mailbox before forward returns, so a request sent
// afterwards is answered after they were all counted.

#include <cstdio>
#include <map>
#include <string>

#include <caf/actor_system.hpp>
#include <caf/scoped_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "seed_nodes.hpp"
#include "soma/soma.hpp"

//! [tally]
using tally_atom = caf::atom_constant<caf::atom("tally")>;

// The watcher's interface: it takes facts and answers a tally as text.
using tally_actor = caf::typed_actor<caf::reacts_to<soma::fact>,
                                     caf::replies_to<tally_atom>::with<std::string>>;

struct tally_state {
  struct per_node {
    long ran = 0;
    long took_us = 0;
  };
  std::map<std::string, per_node> nodes;
  long forwards = 0;
  static inline const char* name = "tally";
};

tally_actor::behavior_type tally(tally_actor::stateful_pointer<tally_state> self) {
  return {
    [self](const soma::fact& f) {
      if (f.name == "ran") {
        auto& n = self->state.nodes[std::string{f["node"].text()}];
        n.ran += 1;
        n.took_us += f["took_us"].integer_or(0); // a number, as the node said it
      } else if (f.name == "finished") {
        self->state.forwards += 1;
      }
    },
    [self](tally_atom) {
      std::string out = std::to_string(self->state.forwards) + " forwards\n";
      for (auto& [name, n] : self->state.nodes)
        out += "  " + name + ": ran " + std::to_string(n.ran) + " times, "
               + std::to_string(n.took_us) + " us in all\n";
      return out;
    },
  };
}
//! [tally]

int main() {
  soma::system_config cfg;
  caf::actor_system system{cfg};
  auto g = soma::graph::somatize(system, Tokenize{}.named("tokenize") >> Embed{}.named("embed")
                                           >> Score{}.named("score"));

  //! [subscribed]
  auto watcher = system.spawn(tally);
  for (int step = 0; step < 100; ++step)
    g.forward("the quick brown fox jumps", {.watching = watcher});

  // Asked after the forwards returned, so it has counted every fact.
  caf::scoped_actor self{system};
  self->request(watcher, caf::infinite, tally_atom::value)
    .receive([](const std::string& table) { std::fputs(table.c_str(), stdout); },
             [&](caf::error& e) { std::fprintf(stderr, "%s\n", system.render(e).c_str()); });
  //! [subscribed]
}
