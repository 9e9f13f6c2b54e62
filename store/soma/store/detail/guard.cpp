#include "soma/store/detail/guard.hpp"

#include <csetjmp>
#include <csignal>
#include <cstddef>
#include <mutex>

#include <pthread.h>

namespace soma::detail {

namespace {

// Initial-exec: the handler reads it without __tls_get_addr, which could
// allocate, in a thread that never ran guarded().
__attribute__((tls_model("initial-exec"))) thread_local sigjmp_buf* active = nullptr;

// The handlers on_fault replaced, which get every fault that is not soma's.
struct sigaction previous_bus, previous_segv;

// Hands a fault outside guarded() to whoever handled it before, as the
// kernel would have: with its mask, the signal blocked unless it asked for
// SA_NODEFER, and reset to the default after one fault if it asked for
// SA_RESETHAND.
void pass_on(int sig, siginfo_t* info, void* context) {
  auto& prev = sig == SIGBUS ? previous_bus : previous_segv;
  struct sigaction was = prev;
  if (was.sa_flags & SA_RESETHAND) {
    prev.sa_handler = SIG_DFL;
    prev.sa_flags = 0;
  }
  bool with_info = (was.sa_flags & SA_SIGINFO) != 0;
  if (with_info ? was.sa_sigaction == nullptr
                : was.sa_handler == SIG_DFL || was.sa_handler == SIG_IGN) {
    // The default: returning re-runs the faulting instruction, which now
    // dies (a fault the kernel raises cannot be ignored either).
    signal(sig, SIG_DFL);
    return;
  }
  sigset_t mask = was.sa_mask;
  if (!(was.sa_flags & SA_NODEFER))
    sigaddset(&mask, sig);
  sigset_t before;
  pthread_sigmask(SIG_BLOCK, &mask, &before);
  if (with_info)
    was.sa_sigaction(sig, info, context);
  else
    was.sa_handler(sig);
  pthread_sigmask(SIG_SETMASK, &before, nullptr);
}

void on_fault(int sig, siginfo_t* info, void* context) {
  if (auto* jump = active) {
    active = nullptr;
    siglongjmp(*jump, 1);
  }
  pass_on(sig, info, context);
}

bool is_ours(int sig) {
  struct sigaction now {};
  sigaction(sig, nullptr, &now);
  return (now.sa_flags & SA_SIGINFO) && now.sa_sigaction == on_fault;
}

// Puts on_fault in place for `sig` unless it is there, keeping the handler
// it replaces to pass other faults on to.
void install_for(int sig, struct sigaction& previous) {
  if (is_ours(sig))
    return;
  struct sigaction sa {};
  sa.sa_sigaction = on_fault;
  // SA_NODEFER: the jump out leaves the signal unblocked, so the next fault
  // is caught too.
  sa.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  sigaction(sig, &sa, &previous);
}

// Puts back the handler on_fault replaced, unless the program installed
// another since (then that one stays).
void restore_for(int sig, const struct sigaction& previous) {
  if (is_ours(sig))
    sigaction(sig, &previous, nullptr);
}

std::mutex installing;
std::size_t holders = 0; // fault_guards alive, under `installing`

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

fault_guard::fault_guard() noexcept {
  std::lock_guard guard{installing};
  ++holders;
  install_for(SIGBUS, previous_bus);
  install_for(SIGSEGV, previous_segv);
}

fault_guard::~fault_guard() {
  std::lock_guard guard{installing};
  if (--holders > 0)
    return;
  restore_for(SIGBUS, previous_bus);
  restore_for(SIGSEGV, previous_segv);
}

bool guarded(void (*fn)(void*), void* arg) noexcept {
  auto* outer = active; // nested: the inner call's fault stays its own
  bool ok = run(fn, arg);
  active = outer;
  return ok;
}

} // namespace soma::detail
