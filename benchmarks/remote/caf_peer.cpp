// bench_remote_caf_peer: plain CAF's side of a remote request/response, the
// peer of bench_remote's plain-CAF rows. One event-based actor, published by
// caf::io::middleman on 127.0.0.1 at a free port, in an actor system made
// from soma::system_config (so the same CAF settings as soma's worker),
// with any `--KEY=VALUE` CAF options given over them.
//
// It prints its port on a line of stdout and runs until its stdin closes
// (the driver closed it, or died), so no peer outlives its driver.
//
// The actor answers a std::uint64_t by making that many bytes its reply
// (answered with the same number), and any std::string with the reply.
//
// It keeps freed buffers of up to 32 MiB for reuse, as soma-node does
// (apps/soma-node/memory.cpp), so that row l' pays for large strings what
// a worker pays for row l.

#include <malloc.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <caf/actor_system.hpp>
#include <caf/io/middleman.hpp>
#include <caf/stateful_actor.hpp>

#include "soma/system_config.hpp"

namespace {

struct answer_state {
  std::string reply;
  static inline const char* name = "bench.caf_peer";
};

caf::behavior answer(caf::stateful_actor<answer_state>* self) {
  return {
    [self](std::uint64_t bytes) {
      self->state.reply.assign(bytes, 'r');
      return bytes;
    },
    [self](const std::string&) { return self->state.reply; },
  };
}

} // namespace

int main(int argc, char** argv) {
  (void)::mallopt(M_MMAP_THRESHOLD, 32 << 20);
  (void)::mallopt(M_TRIM_THRESHOLD, 32 << 20);
  soma::system_config cfg;
  std::vector<std::string> caf_args(argv + 1, argv + argc);
  if (!caf_args.empty()) {
    if (auto err = cfg.parse(caf_args)) {
      std::fprintf(stderr, "bench_remote_caf_peer: CAF rejected its options: %s\n", to_string(err).c_str());
      return 2;
    }
  }
  caf::actor_system sys{cfg};
  auto peer = sys.spawn(answer);
  auto port = sys.middleman().publish(peer, 0, "127.0.0.1");
  if (!port) {
    std::fprintf(stderr, "bench_remote_caf_peer: cannot publish on 127.0.0.1: %s\n",
                 sys.render(port.error()).c_str());
    return 1;
  }
  std::printf("%u\n", static_cast<unsigned>(*port));
  std::fflush(stdout);
  char c = 0;
  while (read(STDIN_FILENO, &c, 1) > 0) {
  }
  caf::anon_send_exit(peer, caf::exit_reason::user_shutdown);
  return 0;
}
