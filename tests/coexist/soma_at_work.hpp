#pragma once

// soma at work in this process, as a program that links soma::soma has it:
// an actor system made from soma::system_config, the seed's graph, a
// recorder writing each forward into a store, and (when asked for) a store
// served by a soma-node, reached over soma's own CAF connection.

#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include <boost/test/unit_test.hpp>

#include <caf/actor_system.hpp>

#include "../store/child.hpp"
#include "../store/scratch.hpp"
#include "seed_nodes.hpp"
#include "soma/error.hpp"
#include "soma/recorder.hpp"
#include "soma/remote/served_store.hpp"
#include "soma/soma.hpp"
#include "soma/store/readers.hpp"

namespace soma_test {

using namespace std::chrono_literals;

/// Every wait in these tests ends by this deadline.
inline constexpr auto deadline = 10s;

/// What the graph gives for the sentence the tests forward.
inline constexpr double seed_score = 2.0;

class soma_at_work {
public:
  /// `served`: record into a store a soma-node serves (soma://), else into
  /// a directory of this process. Records three forwards.
  explicit soma_at_work(bool served = false) {
    if (served) {
      node_ = std::make_unique<child>(
        std::vector<std::string>{SOMA_NODE_PROGRAM, "--serve-store", dir_ / "served"});
      auto port = node_->line(deadline);
      BOOST_REQUIRE_MESSAGE(port && !port->empty(), "soma-node printed no port within 10 s");
      auto opened = soma::open_store(sys_, "soma://127.0.0.1:" + *port);
      if (!opened)
        BOOST_FAIL(soma::describe(opened.error()));
      store_ = *opened;
    } else {
      store_ = soma::store{dir_ / "store"};
    }
    BOOST_TEST(goes_on());
  }

  /// Records three more forwards of the seed's graph, each in a recorder
  /// of its own; whether each gave the seed's score and the store holds
  /// every forward recorded so far.
  bool goes_on() {
    bool right = true;
    {
      soma::recorder r{sys_, *store_, {.run = "beside"}};
      for (int i = 0; i < 3; ++i)
        right = right && graph_.forward("the quick brown fox", {.watching = r}) == seed_score;
    }
    recorded_ += 3;
    return right && soma::forwards(*store_, "beside").size() == recorded_;
  }

  caf::actor_system& sys() { return sys_; }

private:
  scratch dir_;
  soma::system_config cfg_;
  caf::actor_system sys_{cfg_};
  soma::typed_graph<std::string, double> graph_ =
    soma::graph::somatize(sys_, Tokenize{}.named("tokenize") >> Embed{}.named("embed")
                                  >> Score{}.named("score"));
  std::unique_ptr<child> node_; // the soma-node serving the store; killed once the handle is gone
  std::optional<soma::store> store_;
  std::size_t recorded_ = 0;
};

} // namespace soma_test
