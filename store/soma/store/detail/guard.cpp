#include "soma/store/detail/guard.hpp"

#include <csetjmp>
#include <csignal>
#include <mutex>

namespace soma::detail {

namespace {

thread_local sigjmp_buf* active = nullptr;

struct sigaction previous_bus, previous_segv;

// Hands a fault outside guarded() to whoever handled it before.
void pass_on(int sig, siginfo_t* info, void* context) {
  auto& prev = sig == SIGBUS ? previous_bus : previous_segv;
  if (prev.sa_flags & SA_SIGINFO) {
    if (prev.sa_sigaction) {
      prev.sa_sigaction(sig, info, context);
      return;
    }
  } else if (prev.sa_handler != SIG_DFL && prev.sa_handler != SIG_IGN) {
    prev.sa_handler(sig);
    return;
  }
  // The default: returning re-runs the faulting instruction, which now dies.
  signal(sig, SIG_DFL);
}

void on_fault(int sig, siginfo_t* info, void* context) {
  if (auto* jump = active) {
    active = nullptr;
    siglongjmp(*jump, 1);
  }
  pass_on(sig, info, context);
}

void install() {
  struct sigaction sa {};
  sa.sa_sigaction = on_fault;
  // SA_NODEFER: the jump out leaves the signal unblocked, so the next fault
  // is caught too.
  sa.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGBUS, &sa, &previous_bus);
  sigaction(SIGSEGV, &sa, &previous_segv);
}

// Kept apart, so that no C++ object lives in the frame a fault jumps to.
__attribute__((noinline)) bool run(void (*fn)(void*), void* arg) noexcept {
  sigjmp_buf here;
  if (sigsetjmp(here, 0) != 0)
    return false;
  active = &here;
  fn(arg);
  active = nullptr;
  return true;
}

} // namespace

bool guarded(void (*fn)(void*), void* arg) noexcept {
  static std::once_flag once;
  std::call_once(once, install);
  auto* outer = active; // nested: the inner call's fault stays its own
  bool ok = run(fn, arg);
  active = outer;
  return ok;
}

} // namespace soma::detail
