#include "soma/store/detail/guard.hpp"

#include <csetjmp>
#include <csignal>
#include <mutex>

namespace soma::detail {

namespace {

// Initial-exec: the handler reads it without __tls_get_addr, which could
// allocate, in a thread that never ran guarded().
__attribute__((tls_model("initial-exec"))) thread_local sigjmp_buf* active = nullptr;

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

// Puts on_fault in place for `sig` unless it is there, keeping the handler
// it replaces to pass other faults on to.
void install_for(int sig, struct sigaction& previous) {
  struct sigaction now {};
  sigaction(sig, nullptr, &now);
  if ((now.sa_flags & SA_SIGINFO) && now.sa_sigaction == on_fault)
    return;
  struct sigaction sa {};
  sa.sa_sigaction = on_fault;
  // SA_NODEFER: the jump out leaves the signal unblocked, so the next fault
  // is caught too.
  sa.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  sigaction(sig, &sa, &previous);
}

std::mutex installing;

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

void install_fault_guard() noexcept {
  std::lock_guard guard{installing};
  install_for(SIGBUS, previous_bus);
  install_for(SIGSEGV, previous_segv);
}

bool guarded(void (*fn)(void*), void* arg) noexcept {
  static std::once_flag once;
  std::call_once(once, install_fault_guard);
  auto* outer = active; // nested: the inner call's fault stays its own
  bool ok = run(fn, arg);
  active = outer;
  return ok;
}

} // namespace soma::detail
