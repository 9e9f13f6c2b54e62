// Another client process for the TLS test: connects to the worker at
// argv[1] (with TLS when given cert, key and CA), runs Twice there on 21.
// Prints the value, or the error; exits 0 on 42, 3 when refused, 1 otherwise.
// With SOMA_CLIENT_HOLD_MS set it prints `holding` after its first forward,
// holds the session that long, and runs Twice again.
// With SOMA_CLIENT_INC set it runs Inc on 1 instead and prints what it gave
// (built twice: remote_client_v2 links the other build of the library).

#include <cstdlib>
#include <iostream>
#include <thread>

#include "remote_fixture.hpp"

int main(int argc, char** argv) {
  if (argc != 2 && argc != 5) {
    std::cerr << "usage: remote_client HOST:PORT [CERT KEY CA]\n";
    return 2;
  }
  std::optional<soma::tls> tls;
  soma::system_config cfg;
  if (argc == 5) {
    tls = soma::tls{argv[2], argv[3], argv[4]};
    cfg.use_tls(*tls);
  }
  caf::actor_system sys{cfg};
  try {
    auto w = soma::worker::connect(sys, argv[1], soma::mode::project, tls,
                                   std::chrono::milliseconds(3000));
    auto broker = soma::broker::embedded({{"w1", w}});
    if (std::getenv("SOMA_CLIENT_INC")) { // Inc as this client's library builds it, on 1
      auto inc = soma::graph::somatize(sys, Inc{}.named("a").at("w1"));
      std::cout << inc.forward(1, {.broker = broker}) << "\n";
      return 0;
    }
    auto g = soma::graph::somatize(sys, Twice{}.named("b").at("w1"));
    auto v = g.forward(21, {.broker = broker});
    if (auto* hold = std::getenv("SOMA_CLIENT_HOLD_MS")) { // keeps the session open a while
      std::cout << "holding" << std::endl; // its session is open and its first forward came back
      std::this_thread::sleep_for(std::chrono::milliseconds(std::atoi(hold)));
      v = g.forward(21, {.broker = broker});
    }
    std::cout << v << "\n";
    return v == 42 ? 0 : 1;
  } catch (const soma::worker_error& e) {
    std::cout << "refused: " << e.what() << "\n";
    return 3;
  } catch (const std::exception& e) {
    std::cout << "error: " << e.what() << "\n";
    return 1;
  }
}
