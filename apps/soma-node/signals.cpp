#include "signals.hpp"

#include <pthread.h>
#include <unistd.h>

namespace soma::node_cli {

stop_signals::stop_signals() {
  sigemptyset(&set_);
  sigaddset(&set_, SIGTERM);
  sigaddset(&set_, SIGINT);
  sigaddset(&set_, SIGUSR1); // --claim: no trial waits any more
  sigaddset(&set_, SIGUSR2); // the lifeline closed
  pthread_sigmask(SIG_BLOCK, &set_, nullptr);
}

int stop_signals::wait() const {
  int signal = 0;
  sigwait(&set_, &signal);
  return signal;
}

void claims_ended() {
  ::kill(::getpid(), SIGUSR1);
}

void lifeline_closed() {
  ::kill(::getpid(), SIGUSR2);
}

std::string stop_reason(int signal, int claim_status) {
  return signal == SIGTERM   ? "SIGTERM"
         : signal == SIGINT  ? "SIGINT"
         : signal == SIGUSR2 ? "the program that spawned it is gone"
         : claim_status == 0 ? "no trial to claim"
                             : "the claims ended";
}

} // namespace soma::node_cli
