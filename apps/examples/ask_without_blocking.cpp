// Asking a graph from inside an actor: request, don't block.
//
// `g.forward(...)` blocks its caller, which an actor must never do. An actor
// sends the graph's actor a request instead and handles the answer (the value,
// or a caf::error naming the node that failed) when it comes; meanwhile it
// keeps serving its own mailbox. Many requests may be in flight at once.

#include <cstdio>
#include <string>

#include <caf/actor_system.hpp>
#include <caf/event_based_actor.hpp>

#include "seed_nodes.hpp"
#include "soma/soma.hpp"

int main() {
  soma::system_config cfg;
  caf::actor_system system{cfg};
  auto g = soma::graph::somatize(system, Tokenize{}.named("tokenize") >> Embed{}.named("embed")
                                           >> Score{}.named("score"));

  //! [asked]
  // A graph's actors stop when its last copy is gone. The handlers keep a
  // copy each, so the graph outlives main's `g` until every answer came.
  system.spawn([g](caf::event_based_actor* self) {
    for (std::string text : {"the quick brown fox", "", "jumps over the lazy dog"}) {
      self->request(g.actor(), caf::infinite, soma::forward_atom::value, text,
                    soma::watching{soma::print})
        .then([g, text](double score) { std::printf("'%s' -> %g\n", text.c_str(), score); },
              [g, text](caf::error& e) {
                std::printf("'%s' -> %s\n", text.c_str(), soma::describe(e).c_str());
              });
    }
  });
  //! [asked]
  // The actor system waits for every actor to finish before main returns.
}
