// A worker of one's own, built on soma::worker (what soma-node is built on):
// it serves the node library given, on loopback, printing its port first.
#include <sys/prctl.h>

#include <csignal>
#include <cstdio>
#include <string>

#include <caf/actor_system.hpp>
#include <caf/io/middleman.hpp>
#include <caf/send.hpp>

#include <soma/worker/server.hpp>
#include <soma/worker/worker_state.hpp>
#include <soma/system_config.hpp>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: custom_worker NODE_LIBRARY\n");
    return 2;
  }
  // A worker started by a client goes when the client goes, however it goes.
  prctl(PR_SET_PDEATHSIG, SIGTERM);
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGTERM);
  sigaddset(&stop, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop, nullptr);
  soma::serve::worker_state worker{{soma::serve::load_node_library(argv[1])}, false, "/tmp"};
  soma::system_config cfg;
  caf::actor_system sys{cfg};
  auto front = soma::serve::spawn_front(sys, worker, [](const std::string& line) {
    std::fprintf(stderr, "custom_worker: %s\n", line.c_str());
  });
  auto port = sys.middleman().publish(front, 0, "127.0.0.1", true);
  if (!port)
    return 1;
  std::printf("%u\n", static_cast<unsigned>(*port));
  std::fflush(stdout);
  int signal = 0;
  sigwait(&stop, &signal);
  caf::anon_send_exit(front, caf::exit_reason::user_shutdown);
  return 0;
}
