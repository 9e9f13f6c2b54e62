// A plain CAF 0.17 program, without soma: the far end of the remote actors
// in caf_test.cpp. (A process has one CAF node id, so the far end of a
// remote actor must be a process of its own.)
//
//   plain_peer serve APP_ID_BYTES
//       publishes an echo actor on 127.0.0.1 (a port of the kernel's
//       choosing), prints "port N", and serves until it is killed;
//   plain_peer ask PORT APP_ID_BYTES SIZE
//       reaches the echo actor at 127.0.0.1:PORT with remote_actor, sends it
//       SIZE bytes and prints "echoed SIZE" when they all came back (exit
//       0), or "error ..." with what went wrong (exit 1).
//
// Both ends name the application with an identifier of APP_ID_BYTES bytes
// (`middleman.app-identifiers`), which the server's half of BASP's
// handshake carries: past 64 KiB it is larger than soma lets an
// unauthenticated peer send to its own actor systems.

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include <unistd.h>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/io/middleman.hpp>
#include <caf/scoped_actor.hpp>

namespace {

/// The application identifier both ends use: `bytes` bytes.
std::vector<std::string> app_ids(std::size_t bytes) {
  return {std::string(bytes, 'a')};
}

caf::behavior echo(caf::event_based_actor*) {
  return {[](const std::string& s) { return s; }};
}

int serve(caf::actor_system& sys) {
  auto port = sys.middleman().publish(sys.spawn(echo), 0, "127.0.0.1");
  if (!port) {
    std::printf("error %s\n", sys.render(port.error()).c_str());
    return 1;
  }
  std::printf("port %u\n", static_cast<unsigned>(*port));
  std::fflush(stdout);
  for (;;)
    ::pause(); // until killed: its parent reaps it

}

int ask(caf::actor_system& sys, std::uint16_t port, std::size_t size) {
  auto far = sys.middleman().remote_actor("127.0.0.1", port);
  if (!far) {
    std::printf("error %s\n", sys.render(far.error()).c_str());
    return 1;
  }
  caf::scoped_actor self{sys};
  int status = 1;
  self->request(*far, std::chrono::seconds{10}, std::string(size, 'x'))
    .receive(
      [&](const std::string& back) {
        if (back == std::string(size, 'x')) {
          std::printf("echoed %zu\n", back.size());
          status = 0;
        } else {
          std::printf("error: %zu bytes came back, not the %zu sent\n", back.size(), size);
        }
      },
      [&](caf::error& e) { std::printf("error %s\n", sys.render(e).c_str()); });
  return status;
}

} // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  bool serving = args.size() == 2 && args[0] == "serve";
  bool asking = args.size() == 4 && args[0] == "ask";
  if (!serving && !asking) {
    std::fprintf(stderr, "usage: plain_peer serve APP_ID_BYTES | ask PORT APP_ID_BYTES SIZE\n");
    return 2;
  }
  caf::actor_system_config cfg;
  cfg.load<caf::io::middleman>();
  cfg.set("middleman.app-identifiers", app_ids(std::stoul(serving ? args[1] : args[2])));
  caf::actor_system sys{cfg};
  if (serving)
    return serve(sys);
  return ask(sys, static_cast<std::uint16_t>(std::stoul(args[1])), std::stoul(args[3]));
}
